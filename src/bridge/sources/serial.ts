import { ReadlineParser, SerialPort } from 'serialport';
import type { BridgeConfig, SourceConfig } from '../config.js';
import { convert, withTimeout, type Readings, type Source } from './source.js';

type SerialSourceConfig = Extract<SourceConfig, { kind: 'serial' }>;

/** The numbers of a READ answer (`21.5,201.3,188.9,0,0`); undefined for a line that is not one (an echo, a comment). */
export function parseAnswer(line: string): number[] | undefined {
  const fields = line.trim().split(',');
  if (fields.length === 0 || fields[0] === '') return undefined;
  const numbers = fields.map((f) => Number(f.trim()));
  return numbers.every((n, i) => Number.isFinite(n) && fields[i].trim() !== '') ? numbers : undefined;
}

/**
 * A TC4-style line protocol: the bridge writes the request (`READ`) and a newline, the board answers one line
 * of comma-separated numbers (ambient, then the channels). One request is in flight at a time.
 */
export class SerialSource implements Source {
  readonly label: string;
  private port?: SerialPort;
  private waiting?: (line: string) => void;

  constructor(
    private readonly source: SerialSourceConfig,
    private readonly channels: Extract<BridgeConfig['channels'], { kind: 'serial' }>['map'],
  ) {
    this.label = `serial ${source.path} ${source.baud_rate} baud`;
  }

  async open(): Promise<void> {
    const s = this.source;
    const port = new SerialPort({ path: s.path, baudRate: s.baud_rate, dataBits: s.data_bits, stopBits: s.stop_bits, parity: s.parity, autoOpen: false });
    await new Promise<void>((resolve, reject) => port.open((error) => (error ? reject(new Error(`${this.label}: ${error.message}`)) : resolve())));
    const lines = port.pipe(new ReadlineParser({ delimiter: '\n' }));
    lines.on('data', (line: string) => {
      if (parseAnswer(line) === undefined) return;
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting?.(line);
    });
    port.on('close', () => (this.port = undefined));
    this.port = port;
    for (const command of s.init) await this.write(`${command}\n`);
  }

  private write(text: string): Promise<void> {
    return new Promise((resolve, reject) => this.port!.write(text, (error) => (error ? reject(error) : this.port!.drain(() => resolve()))));
  }

  async read(): Promise<Readings> {
    if (!this.port) await this.open();
    const answer = new Promise<string>((resolve) => (this.waiting = resolve));
    await this.write(`${this.source.request}\n`);
    let line: string;
    try {
      line = await withTimeout(answer, this.source.timeout_ms, `${this.label} ${this.source.request}`);
    } catch (error) {
      this.waiting = undefined;
      throw error;
    }
    const numbers = parseAnswer(line)!;
    const readings: Readings = {};
    for (const [name, spec] of Object.entries(this.channels)) readings[name] = spec.index < numbers.length ? convert(numbers[spec.index], spec) : null;
    return readings;
  }

  async close(): Promise<void> {
    const port = this.port;
    if (!port?.isOpen) return;
    await new Promise<void>((resolve) => port.close(() => resolve()));
  }
}
