/**
 * Group commit for one kind of statement: calls made while a batch is running (or in the same tick) are
 * gathered and run together as the next batch, so under load N calls cost a few statements instead of N,
 * and an idle caller waits no longer than for its own statement. `run` answers one result per item, in order.
 *
 * `gather` makes a batch wait, once started, up to `ms` for `items` calls: for statements whose fixed cost
 * is worth a few milliseconds of the callers' time (their callers are not waiting on them to answer a user).
 */
export function coalesce<T, R>(run: (items: T[]) => Promise<R[]>, maxBatch = 200, gather?: { items: number; ms: number }): (item: T) => Promise<R> {
  let waiting: { item: T; resolve: (value: R) => void; reject: (error: unknown) => void }[] = [];
  let running = false;
  let filled: (() => void) | undefined;
  const drain = async () => {
    running = true;
    // Let the calls of this tick join the first batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (waiting.length > 0) {
      if (gather && waiting.length < gather.items) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => (filled = undefined, resolve()), gather.ms);
          filled = () => (clearTimeout(timer), (filled = undefined), resolve());
        });
      }
      const batch = waiting.slice(0, maxBatch);
      waiting = waiting.slice(batch.length);
      try {
        const results = await run(batch.map((w) => w.item));
        batch.forEach((w, i) => w.resolve(results[i]));
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
    running = false;
  };
  return (item: T) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (!running) void drain();
      else if (filled && gather && waiting.length >= gather.items) filled();
    });
}

/**
 * Pipelining for one kind of command: the calls made during one task (a callback and the microtasks it
 * queues: e.g. all the windows of one request's rate limit) are sent together as one batch as soon as that
 * task ends. Unlike coalesce, a batch waits neither for the one before it nor for the event loop's next turn
 * (a batch deferred to setImmediate waits behind every other callback of the turn, which under load costs
 * more than the commands it saves). `run` answers one result per item, in order.
 */
export function batchPerTask<T, R>(run: (items: T[]) => Promise<R[]>, maxBatch: number): (item: T) => Promise<R> {
  let waiting: { item: T; resolve: (value: R) => void; reject: (error: unknown) => void }[] = [];
  const flush = () => {
    const batches = [];
    for (let i = 0; i < waiting.length; i += maxBatch) batches.push(waiting.slice(i, i + maxBatch));
    waiting = [];
    for (const batch of batches) {
      run(batch.map((w) => w.item)).then(
        (results) => batch.forEach((w, i) => w.resolve(results[i])),
        (error: unknown) => batch.forEach((w) => w.reject(error)),
      );
    }
  };
  return (item: T) =>
    new Promise<R>((resolve, reject) => {
      if (waiting.length === 0) queueMicrotask(flush);
      waiting.push({ item, resolve, reject });
    });
}
