import type { LiveRun } from './frames.js';
import type { LiveMessage } from './messages.js';
import { SseParser } from './sse-client.js';

/** A run's messages as a watcher parses them from its bytes. */
export function messagesOfRun(run: LiveRun): LiveMessage[] {
  const messages: LiveMessage[] = [];
  new SseParser((m) => messages.push({ id: Number(m.id), event: m.event as LiveMessage['event'], data: JSON.parse(m.data) })).push(Buffer.concat(run.frames.chunks).toString('utf8'));
  return messages;
}
