/** One server-sent event as a client sees it. */
export interface SseMessage {
  id?: string;
  event: string;
  data: string;
}

/**
 * An incremental text/event-stream reader for the tests and the benchmark (the fields this service sends:
 * id, event, data, and comment lines), fed chunks as they arrive from the socket.
 */
export class SseParser {
  private buffer = '';

  constructor(
    private readonly onMessage: (message: SseMessage) => void,
    private readonly onComment: (text: string) => void = () => {},
  ) {}

  push(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let id: string | undefined;
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) {
          this.onComment(line.slice(1).trim());
          continue;
        }
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') id = value;
        else if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) this.onMessage({ id, event, data: data.join('\n') });
    }
  }
}
