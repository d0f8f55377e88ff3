import mqtt, { type MqttClient } from 'mqtt';
import type { BridgeConfig, MqttChannel, SourceConfig } from '../config.js';
import { convert, type Readings, type Source } from './source.js';

type MqttSourceConfig = Extract<SourceConfig, { kind: 'mqtt' }>;

/** The number a message carries for `spec`: the whole payload, or the dotted `field` of its JSON. */
export function valueOf(payload: Buffer, spec: MqttChannel): number | null {
  const text = payload.toString('utf8').trim();
  if (!spec.field) {
    const n = Number(text);
    return text !== '' && Number.isFinite(n) ? n : null;
  }
  let node: unknown;
  try {
    node = JSON.parse(text);
  } catch {
    return null;
  }
  for (const key of spec.field.split('.')) node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
  const n = typeof node === 'string' ? Number(node) : node;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}

/**
 * Subscribes to every channel's topic and keeps each channel's latest value; a read samples them all at the
 * poll rate, so the curve has one time base whatever each sensor's publishing rate. A channel whose last
 * message is older than stale_after_s reads null.
 */
export class MqttSource implements Source {
  readonly label: string;
  private client?: MqttClient;
  private readonly latest = new Map<string, { value: number | null; at: number }>();
  private readonly byTopic = new Map<string, { name: string; spec: MqttChannel }[]>();

  constructor(
    private readonly source: MqttSourceConfig,
    private readonly channels: Extract<BridgeConfig['channels'], { kind: 'mqtt' }>['map'],
  ) {
    this.label = `mqtt ${source.url.replace(/\/\/[^@/]*@/, '//')}`;
    for (const [name, spec] of Object.entries(channels)) {
      const list = this.byTopic.get(spec.topic) ?? [];
      list.push({ name, spec });
      this.byTopic.set(spec.topic, list);
    }
  }

  async open(): Promise<void> {
    const s = this.source;
    this.client = await mqtt.connectAsync(s.url, {
      username: s.username,
      password: s.password,
      clientId: s.client_id,
      reconnectPeriod: 1000,
      connectTimeout: 5000,
    });
    this.client.on('message', (topic, payload) => {
      const now = performance.now();
      for (const { name, spec } of this.byTopic.get(topic) ?? []) {
        const raw = valueOf(payload, spec);
        this.latest.set(name, { value: raw === null ? null : convert(raw, spec), at: now });
      }
    });
    // Subscriptions are renewed by the client after a reconnect (resubscribe is on by default).
    await this.client.subscribeAsync([...this.byTopic.keys()], { qos: 0 });
  }

  async read(): Promise<Readings> {
    if (!this.client?.connected) throw new Error(`${this.label}: not connected to the broker`);
    const oldest = performance.now() - this.source.stale_after_s * 1000;
    const readings: Readings = {};
    for (const name of Object.keys(this.channels)) {
      const last = this.latest.get(name);
      readings[name] = last && last.at >= oldest ? last.value : null;
    }
    return readings;
  }

  async close(): Promise<void> {
    await this.client?.endAsync();
  }
}
