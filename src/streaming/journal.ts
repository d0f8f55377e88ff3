import { constants } from 'node:fs';
import { mkdir, open, readdir, readFile, rm, truncate, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/** A segment this large is closed and a new one begun, so a segment's file can go once its sessions have. */
export const SEGMENT_BYTES = 64 * 1024 * 1024;

/** Appending, and durable on return from each write (O_DSYNC: data and what is needed to read it back). */
const SEGMENT_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC;

const segmentName = (segment: number) => `${String(segment).padStart(10, '0')}.log`;

interface Pending {
  line: Buffer;
  key: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * One append-only log shared by every live session of the process, with group commit: lines written while a
 * write is on its way to disk go together in the next write, so fifty machines posting at once cost one
 * durable write, not fifty. A line is `<key>\t<text>\n`; text holds no raw newline. Lines of one key keep the
 * order of their writes.
 *
 * The log is a sequence of segments. A segment's file is deleted once no key with lines in it is still live
 * (each released key was discarded by its owner), so the journal holds about what the live sessions hold.
 */
export class Journal {
  private file: FileHandle | null = null;
  private segment = 0;
  /** Bytes of whole lines in the current segment: a failed write is cut back to this. */
  private bytes = 0;
  private queue: Pending[] = [];
  private writing: Promise<void> | null = null;
  /** Keys with lines in each segment, and the segments of each key. */
  private readonly keysOf = new Map<number, Set<string>>();
  private readonly segmentsOf = new Map<string, Set<number>>();

  constructor(
    private readonly dir: string,
    private readonly segmentBytes = SEGMENT_BYTES,
  ) {}

  /**
   * Reads every segment, oldest first, handing each whole line to `onLine`; call once, before any write.
   * What follows the last whole line of the last segment (a torn write: never acknowledged) is cut off, so
   * the next write starts on a line of its own.
   */
  async replay(onLine: (key: string, text: string) => void): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const segments = (await readdir(this.dir))
      .filter((name) => /^\d{10}\.log$/.test(name))
      .map((name) => Number(name.slice(0, 10)))
      .sort((a, b) => a - b);
    for (const segment of segments) {
      const content = await readFile(join(this.dir, segmentName(segment)));
      let start = 0;
      for (let end = content.indexOf(0x0a); end >= 0; end = content.indexOf(0x0a, start)) {
        const tab = content.indexOf(0x09, start);
        if (tab > start && tab < end) {
          const key = content.toString('utf8', start, tab);
          this.hold(key, segment);
          onLine(key, content.toString('utf8', tab + 1, end));
        }
        start = end + 1;
      }
      this.segment = segment;
      this.bytes = start;
      if (start < content.length) await truncate(join(this.dir, segmentName(segment)), start);
    }
    if (segments.length === 0) this.segment = 1;
    // Segments no key holds any more (their sessions were discarded before the restart) are not needed.
    for (const segment of segments) if (!this.keysOf.has(segment) && segment !== this.segment) await this.remove(segment);
  }

  /** Appends a line for `key`; resolves once it is durable. */
  write(key: string, text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ line: Buffer.from(`${key}\t${text}\n`), key, resolve, reject });
      this.writing ??= this.drain();
    });
  }

  /** Writes what is queued, group by group, until nothing is. */
  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const group = this.queue;
      this.queue = [];
      try {
        await this.writeGroup(group);
        for (const pending of group) pending.resolve();
      } catch (error) {
        for (const pending of group) pending.reject(error);
      }
    }
    this.writing = null;
  }

  private async writeGroup(group: Pending[]): Promise<void> {
    // Also right after a restart, when the segment replay left as current may already be full.
    if (this.bytes >= this.segmentBytes) {
      await this.file?.close();
      this.file = null;
      const full = this.segment++;
      this.bytes = 0;
      if (!this.keysOf.has(full)) await this.remove(full);
    }
    this.file ??= await open(join(this.dir, segmentName(this.segment)), SEGMENT_FLAGS);
    const data = group.length === 1 ? group[0].line : Buffer.concat(group.map((pending) => pending.line));
    try {
      await this.file.write(data);
    } catch (error) {
      // Nothing of the group was acknowledged; cut what reached the file, so a later line never joins its debris.
      await this.file.truncate(this.bytes).catch(() => {});
      throw error;
    }
    this.bytes += data.length;
    for (const pending of group) this.hold(pending.key, this.segment);
  }

  private hold(key: string, segment: number): void {
    let keys = this.keysOf.get(segment);
    if (!keys) this.keysOf.set(segment, (keys = new Set()));
    keys.add(key);
    let segments = this.segmentsOf.get(key);
    if (!segments) this.segmentsOf.set(key, (segments = new Set()));
    segments.add(segment);
  }

  /**
   * The key's lines are no longer needed (its owner keeps what it needs elsewhere, or nothing): segments
   * then held by no key are deleted, but for the one being written.
   */
  async release(key: string): Promise<void> {
    const segments = this.segmentsOf.get(key);
    if (!segments) return;
    this.segmentsOf.delete(key);
    for (const segment of segments) {
      const keys = this.keysOf.get(segment)!;
      keys.delete(key);
      if (keys.size === 0) {
        this.keysOf.delete(segment);
        if (segment !== this.segment) await this.remove(segment);
      }
    }
  }

  private async remove(segment: number): Promise<void> {
    await rm(join(this.dir, segmentName(segment)), { force: true });
  }

  async close(): Promise<void> {
    await this.writing;
    await this.file?.close();
    this.file = null;
  }
}
