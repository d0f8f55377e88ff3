import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';

/**
 * The bridge's configuration file: TOML (`.toml`) or JSON (`.json`), one source, its channels, the batch rules,
 * the auto-event thresholds and the journal. Every key is snake_case; unknown keys are refused so a typo never
 * silently falls back to a default. README "Machine bridge" and examples/bridge/ document it.
 */

export class BridgeConfigError extends Error {}

const positive = z.number().positive();
const unit = z.enum(['C', 'F', 'none']).default('none');
const temperatureUnit = z.enum(['C', 'F']);
/** Channel names as the ingest takes them; `bt` and `et` are the bean and environment temperatures. */
const CHANNEL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** A reading's conversion, in this order: raw × scale + offset, then °F → °C when unit is F. */
const conversion = {
  scale: z.number().finite().default(1),
  offset: z.number().finite().default(0),
  unit,
};

export const MODBUS_TYPES = ['int16', 'uint16', 'int32', 'uint32', 'float32'] as const;
export type ModbusType = (typeof MODBUS_TYPES)[number];

const modbusChannel = z.strictObject({
  /** 3 = read holding registers, 4 = read input registers. */
  function_code: z.union([z.literal(3), z.literal(4)]).default(3),
  address: z.number().int().min(0).max(65535),
  type: z.enum(MODBUS_TYPES).default('int16'),
  /** For 32-bit types: big = high word first (ABCD), little = low word first (CDAB). */
  word_order: z.enum(['big', 'little']).default('big'),
  /** The Modbus unit (slave) id, when this channel's controller differs from the source's. */
  unit_id: z.number().int().min(0).max(255).optional(),
  ...conversion,
});

const mqttChannel = z.strictObject({
  topic: z.string().min(1),
  /** A dotted path into a JSON payload (`temps.bt`); absent, the payload is a plain number. */
  field: z.string().min(1).optional(),
  ...conversion,
});

const serialChannel = z.strictObject({
  /** The field's position (0 = first) in the comma-separated READ answer; a TC4 answers ambient,ch1,ch2,ch3,ch4. */
  index: z.number().int().min(0).max(31),
  ...conversion,
});

const serialLine = {
  path: z.string().min(1),
  baud_rate: z.number().int().positive().default(115200),
  data_bits: z.union([z.literal(7), z.literal(8)]).default(8),
  stop_bits: z.union([z.literal(1), z.literal(2)]).default(1),
  parity: z.enum(['none', 'even', 'odd']).default('none'),
};

const pollHz = z.number().positive().max(10, 'at most 10 readings a second').default(2);
const timeoutMs = z.number().int().min(50).max(10_000).default(500);

const modbusTcp = z.strictObject({
  kind: z.literal('modbus-tcp'),
  host: z.string().min(1),
  port: z.number().int().min(1).max(65535).default(502),
  unit_id: z.number().int().min(0).max(255).default(1),
  poll_hz: pollHz,
  timeout_ms: timeoutMs,
});
const modbusRtu = z.strictObject({
  kind: z.literal('modbus-rtu'),
  ...serialLine,
  baud_rate: z.number().int().positive().default(9600),
  unit_id: z.number().int().min(0).max(255).default(1),
  poll_hz: pollHz,
  timeout_ms: timeoutMs,
});
const mqttSource = z.strictObject({
  kind: z.literal('mqtt'),
  /** mqtt://host:1883, mqtts://…, ws://… */
  url: z.string().regex(/^(mqtts?|wss?):\/\//, 'must be an mqtt://, mqtts://, ws:// or wss:// URL'),
  username: z.string().optional(),
  password: z.string().optional(),
  client_id: z.string().optional(),
  /** The bridge samples the latest value of every channel this often. */
  poll_hz: pollHz,
  /** A channel whose last message is older than this reads null (the sensor stopped publishing). */
  stale_after_s: positive.default(5),
});
const serialSource = z.strictObject({
  kind: z.literal('serial'),
  ...serialLine,
  /** Sent once after opening, each followed by a newline (a TC4: `CHAN;1200`, `UNITS;C`). */
  init: z.array(z.string()).default([]),
  /** The request for one reading; the answer is one line of comma-separated numbers. */
  request: z.string().min(1).default('READ'),
  poll_hz: pollHz,
  timeout_ms: timeoutMs,
});

const source = z.discriminatedUnion('kind', [modbusTcp, modbusRtu, mqttSource, serialSource]);

const service = z.strictObject({
  url: z.string().url(),
  machine: z.string().min(1),
  /** The machine's bridge token (fcb_…); FIRSTCRACK_BRIDGE_TOKEN overrides it. */
  bridge_token: z.string().min(1).optional(),
  /** An API key with production.roast.write (mode start) or production.roast.read (mode attach); FIRSTCRACK_API_KEY overrides it. */
  api_key: z.string().min(1).optional(),
  /** X-Service-Org, when api_key is a user access token. */
  organization: z.string().optional(),
});

const batch = z.strictObject({
  /** start: the bridge starts each batch itself; attach: it follows the batch started in the console on this machine. */
  mode: z.enum(['start', 'attach']).default('attach'),
  /** Batch numbers for mode start: {yyyy} {yy} {mm} {dd} and {n} (the next counter, {n:3} zero-padded to 3). */
  number_pattern: z.string().regex(/\{n(:\d)?\}/, 'must contain {n} (or {n:3})').default('R{yyyy}{mm}{dd}-{n:2}'),
  charge_kg: z.string().regex(/^\d+(\.\d+)?$/, 'must be a decimal number of kg, e.g. "12.5"').default('10'),
  profile: z.string().optional(),
  green_lot: z.string().optional(),
  /** Seconds recorded after drop (cooling) before the batch's recording ends. */
  after_drop_s: z.number().min(0).max(3600).default(60),
});

const detect = z.strictObject({
  /** Auto-charge: BT falls by at least charge_fall_c within charge_window_s from a reading of at least charge_min_bt_c (preheated drum). */
  auto_charge: z.boolean().default(true),
  charge_fall_c: positive.default(5),
  charge_window_s: positive.default(6),
  charge_min_bt_c: z.number().default(100),
  /** Turning point: the lowest BT after charge, marked once BT has risen tp_rise_c above it. */
  turning_point: z.boolean().default(true),
  tp_rise_c: positive.default(1),
  /** Auto-drop: after the turning point and drop_min_after_charge_s, BT of at least drop_min_bt_c falls by drop_fall_c within drop_window_s. */
  auto_drop: z.boolean().default(true),
  drop_fall_c: positive.default(3),
  drop_window_s: positive.default(12),
  drop_min_bt_c: z.number().default(150),
  drop_min_after_charge_s: z.number().min(0).default(180),
});

const journal = z.strictObject({
  dir: z.string().min(1).default('./firstcrack-bridge-journal'),
  /** The journal is fsynced at least this often (0: after every record); a post's records always before it is sent. */
  fsync_interval_ms: z.number().int().min(0).max(10_000).default(1000),
});

const post = z.strictObject({
  /** How often readings go out while live. */
  interval_ms: z.number().int().min(50).max(60_000).default(500),
  /** The most samples in one post (a backlog is sent in posts of this size; the service takes at most 2000). */
  max_samples: z.number().int().min(1).max(2000).default(2000),
});

const channelName = (key: string) => CHANNEL_NAME.test(key);

export const BridgeConfigSchema = z
  .strictObject({
    service,
    source,
    channels: z.record(z.string(), z.record(z.string(), z.unknown())),
    batch: batch.default(batch.parse({})),
    detect: detect.default(detect.parse({})),
    journal: journal.default(journal.parse({})),
    post: post.default(post.parse({})),
  })
  .superRefine((config, ctx) => {
    if (!config.channels.bt) ctx.addIssue({ code: 'custom', path: ['channels', 'bt'], message: 'a bt (bean temperature) channel is required' });
    for (const key of Object.keys(config.channels)) {
      if (!channelName(key)) ctx.addIssue({ code: 'custom', path: ['channels', key], message: 'channel names are 1–64 letters, digits, _ . or -' });
    }
    if (Object.keys(config.channels).length > 34) ctx.addIssue({ code: 'custom', path: ['channels'], message: 'at most 32 channels besides bt and et' });
  });

export type ModbusChannel = z.output<typeof modbusChannel>;
export type MqttChannel = z.output<typeof mqttChannel>;
export type SerialChannel = z.output<typeof serialChannel>;
export type SourceConfig = z.output<typeof source>;
export type DetectConfig = z.output<typeof detect>;

export interface BridgeConfig extends Omit<z.output<typeof BridgeConfigSchema>, 'channels'> {
  channels:
    | { kind: 'modbus'; map: Record<string, ModbusChannel> }
    | { kind: 'mqtt'; map: Record<string, MqttChannel> }
    | { kind: 'serial'; map: Record<string, SerialChannel> };
}

export { temperatureUnit };

function describe(issues: z.core.$ZodIssue[], prefix: (string | number)[] = []): string {
  return issues.map((issue) => `${[...prefix, ...issue.path].join('.') || '(top)'}: ${issue.message}`).join('; ');
}

/** Validates a parsed configuration; every mistake is reported with its key (`channels.bt.address: …`). */
export function parseBridgeConfig(raw: unknown): BridgeConfig {
  const top = BridgeConfigSchema.safeParse(raw);
  if (!top.success) throw new BridgeConfigError(describe(top.error.issues));
  const config = top.data;
  const kind = config.source.kind === 'mqtt' ? 'mqtt' : config.source.kind === 'serial' ? 'serial' : 'modbus';
  const schema = kind === 'mqtt' ? mqttChannel : kind === 'serial' ? serialChannel : modbusChannel;
  const map: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(config.channels)) {
    const parsed = schema.safeParse(spec);
    if (parsed.success) map[name] = parsed.data;
    else problems.push(describe(parsed.error.issues, ['channels', name]));
  }
  for (const name of ['bt', 'et']) {
    const unitOf = (map[name] as { unit?: string } | undefined)?.unit;
    if (unitOf === 'none') problems.push(`channels.${name}.unit: a temperature channel needs unit = "C" or "F"`);
  }
  if (problems.length) throw new BridgeConfigError(problems.join('; '));
  return { ...config, channels: { kind, map } as BridgeConfig['channels'] };
}

/** Reads and validates a configuration file (.toml or .json); environment credentials override the file's. */
export function loadBridgeConfig(path: string, env: NodeJS.ProcessEnv = process.env): BridgeConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new BridgeConfigError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseToml(text);
  } catch (error) {
    throw new BridgeConfigError(`${path} is not valid ${extname(path).toLowerCase() === '.json' ? 'JSON' : 'TOML'}: ${(error as Error).message.split('\n')[0]}`);
  }
  let config: BridgeConfig;
  try {
    config = parseBridgeConfig(raw);
  } catch (error) {
    if (error instanceof BridgeConfigError) throw new BridgeConfigError(`${path}: ${error.message}`);
    throw error;
  }
  const bridgeToken = env.FIRSTCRACK_BRIDGE_TOKEN || config.service.bridge_token;
  const apiKey = env.FIRSTCRACK_API_KEY || config.service.api_key;
  if (!bridgeToken) throw new BridgeConfigError(`${path}: service.bridge_token (or FIRSTCRACK_BRIDGE_TOKEN) is required`);
  if (config.batch.mode === 'start' && !apiKey) {
    throw new BridgeConfigError(`${path}: batch.mode = "start" needs service.api_key (or FIRSTCRACK_API_KEY) with production.roast.write`);
  }
  return { ...config, service: { ...config.service, bridge_token: bridgeToken, api_key: apiKey } };
}

/** °C from a reading in `unit`. */
export const toCelsius = (value: number, unit: 'C' | 'F' | 'none') => (unit === 'F' ? ((value - 32) * 5) / 9 : value);
