/**
 * A lane of `size` turns, handed out round robin over the parties waiting for one (organizations): a party
 * with many calls queued gets one turn, then every other waiting party gets one, before its next. One
 * tenant's burst of heavy calls therefore delays another's heavy call by at most one call of each tenant,
 * not by the whole burst.
 */
export class FairLane {
  private active = 0;
  /** Each waiting party's queue; a Map iterates in insertion order, and a party served is put last again. */
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(private readonly size: number) {}

  /** Resolves once `party` has a turn, with the function that ends it (calling it again does nothing). */
  take(party: string): Promise<() => void> {
    return new Promise((granted) => {
      const grant = () => {
        this.active++;
        let ended = false;
        granted(() => {
          if (ended) return;
          ended = true;
          this.active--;
          this.next();
        });
      };
      if (this.active < this.size && this.waiting.size === 0) return grant();
      const queue = this.waiting.get(party);
      if (queue) queue.push(grant);
      else this.waiting.set(party, [grant]);
    });
  }

  /** Runs `work` in a turn of `party`'s. */
  async run<T>(party: string, work: () => Promise<T>): Promise<T> {
    const end = await this.take(party);
    try {
      return await work();
    } finally {
      end();
    }
  }

  private next(): void {
    while (this.active < this.size && this.waiting.size > 0) {
      const [party, queue] = this.waiting.entries().next().value!;
      this.waiting.delete(party);
      const grant = queue.shift()!;
      if (queue.length > 0) this.waiting.set(party, queue);
      grant();
    }
  }
}
