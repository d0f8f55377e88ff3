/**
 * Resolves once a session of this test's database waits for a lock (polling pg_stat_activity), unless
 * `watch.done` is set first (then it never resolves). Tests race it against a request to tell, without
 * timing anything, whether the request waited for a lock someone holds or answered without waiting.
 */
export async function waitingForALock(owner: { query<T>(sql: string): Promise<T[]> }, watch: { done: boolean } = { done: false }): Promise<void> {
  while (!watch.done) {
    const [{ waiting }] = await owner.query<{ waiting: number }>(
      `select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
    );
    if (waiting > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return new Promise(() => {});
}
