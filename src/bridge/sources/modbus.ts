import ModbusSerial from 'modbus-serial';
import type { ModbusRTU } from 'modbus-serial/ModbusRTU.js';
import type { BridgeConfig, ModbusChannel, ModbusType, SourceConfig } from '../config.js';
import { convert, withTimeout, type Readings, type Source } from './source.js';

type ModbusSourceConfig = Extract<SourceConfig, { kind: 'modbus-tcp' | 'modbus-rtu' }>;

// The package's CommonJS export is the client class itself; its typings describe it as a namespace.
const ModbusClient = ModbusSerial as unknown as new () => ModbusRTU;

const WORDS: Record<ModbusType, number> = { int16: 1, uint16: 1, int32: 2, uint32: 2, float32: 2 };

/** The value of `type` at register `offset` of `registers` (two bytes each, big-endian within a register). */
export function decodeRegisters(registers: Buffer, offset: number, type: ModbusType, wordOrder: 'big' | 'little'): number {
  const at = offset * 2;
  if (type === 'int16') return registers.readInt16BE(at);
  if (type === 'uint16') return registers.readUInt16BE(at);
  // 32-bit values: two registers; little word order (CDAB) sends the low word first.
  const bytes = wordOrder === 'big' ? registers.subarray(at, at + 4) : Buffer.concat([registers.subarray(at + 2, at + 4), registers.subarray(at, at + 2)]);
  if (type === 'int32') return bytes.readInt32BE(0);
  if (type === 'uint32') return bytes.readUInt32BE(0);
  return bytes.readFloatBE(0);
}

/** One read request covering neighbouring channels of one unit and function code. */
interface Block {
  unitId: number;
  functionCode: 3 | 4;
  start: number;
  count: number;
  channels: { name: string; spec: ModbusChannel }[];
}

/** Neighbouring registers (gaps up to 8, at most 120 registers) are read in one request: on RTU at 9600 baud each request costs ~20 ms. */
export function planBlocks(map: Record<string, ModbusChannel>, defaultUnit: number): Block[] {
  const entries = Object.entries(map)
    .map(([name, spec]) => ({ name, spec, unitId: spec.unit_id ?? defaultUnit }))
    .sort((a, b) => a.unitId - b.unitId || a.spec.function_code - b.spec.function_code || a.spec.address - b.spec.address);
  const blocks: Block[] = [];
  for (const { name, spec, unitId } of entries) {
    const end = spec.address + WORDS[spec.type];
    const last = blocks.at(-1);
    if (last && last.unitId === unitId && last.functionCode === spec.function_code && spec.address - (last.start + last.count) <= 8 && end - last.start <= 120) {
      last.count = Math.max(last.count, end - last.start);
      last.channels.push({ name, spec });
    } else {
      blocks.push({ unitId, functionCode: spec.function_code, start: spec.address, count: end - spec.address, channels: [{ name, spec }] });
    }
  }
  return blocks;
}

export class ModbusSource implements Source {
  readonly label: string;
  private readonly client = new ModbusClient();
  private readonly blocks: Block[];
  private connected = false;

  constructor(
    private readonly source: ModbusSourceConfig,
    channels: Extract<BridgeConfig['channels'], { kind: 'modbus' }>['map'],
  ) {
    this.label = source.kind === 'modbus-tcp' ? `modbus-tcp ${source.host}:${source.port}` : `modbus-rtu ${source.path} ${source.baud_rate} baud`;
    this.blocks = planBlocks(channels, source.unit_id);
    this.client.setTimeout(source.timeout_ms);
  }

  async open(): Promise<void> {
    const s = this.source;
    const connecting =
      s.kind === 'modbus-tcp'
        ? this.client.connectTCP(s.host, { port: s.port })
        : this.client.connectRTUBuffered(s.path, { baudRate: s.baud_rate, dataBits: s.data_bits, stopBits: s.stop_bits, parity: s.parity });
    await withTimeout(connecting, Math.max(s.timeout_ms, 2000), `connecting to ${this.label}`);
    this.connected = true;
  }

  async read(): Promise<Readings> {
    if (!this.connected || !this.client.isOpen) {
      this.connected = false;
      await this.open();
    }
    const readings: Readings = {};
    try {
      for (const block of this.blocks) {
        this.client.setID(block.unitId);
        const answer = block.functionCode === 3 ? await this.client.readHoldingRegisters(block.start, block.count) : await this.client.readInputRegisters(block.start, block.count);
        for (const { name, spec } of block.channels) {
          readings[name] = convert(decodeRegisters(answer.buffer, spec.address - block.start, spec.type, spec.word_order), spec);
        }
      }
    } catch (error) {
      // A timed-out or broken connection is reopened on the next read.
      if (!this.client.isOpen || /timed out|ECONN|EPIPE|closed/i.test((error as Error).message ?? '')) {
        this.connected = false;
        await new Promise<void>((resolve) => this.client.close(() => resolve()));
      }
      throw error;
    }
    return readings;
  }

  async close(): Promise<void> {
    if (!this.client.isOpen) return;
    await new Promise<void>((resolve) => this.client.close(() => resolve()));
  }
}
