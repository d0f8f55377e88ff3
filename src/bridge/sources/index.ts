import type { BridgeConfig } from '../config.js';
import type { Source } from './source.js';

/** The source the configuration names; its library is loaded only when used. */
export async function openSource(config: BridgeConfig): Promise<Source> {
  const { source, channels } = config;
  let made: Source;
  if (channels.kind === 'mqtt' && source.kind === 'mqtt') made = new (await import('./mqtt.js')).MqttSource(source, channels.map);
  else if (channels.kind === 'serial' && source.kind === 'serial') made = new (await import('./serial.js')).SerialSource(source, channels.map);
  else if (channels.kind === 'modbus' && (source.kind === 'modbus-tcp' || source.kind === 'modbus-rtu')) made = new (await import('./modbus.js')).ModbusSource(source, channels.map);
  else throw new Error(`channels do not match source.kind ${source.kind}`);
  await made.open();
  return made;
}

export type { Readings, Source } from './source.js';
