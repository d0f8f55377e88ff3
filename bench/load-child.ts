// The load generator's own process (forked by bench/lib.ts `load`): autocannon runs here, never in the
// server's process, so the server's event loop does not also pay for generating and parsing the load.
// Options that are plain data arrive over IPC as they are; options that need code per client or request
// (a body per post, a token per connection) arrive as a scenario: a module and an exported function that
// builds autocannon's options from plain data, called here.
import autocannon from 'autocannon';

export interface LoadRequest {
  type: 'load';
  /** Plain autocannon options (no functions). */
  options?: Partial<autocannon.Options>;
  /** A module (absolute path or file URL) exporting `name(data): autocannon.Options`. */
  scenario?: { module: string; name: string; data: unknown };
}

export interface LoadAnswer {
  type: 'result';
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  /** This process's CPU time over the run (user + system), in milliseconds. */
  cpuMs: number;
  /** Answers by status code. */
  statusCodes: Record<string, number>;
}

process.on('message', async (message: LoadRequest) => {
  if (message.type !== 'load') return;
  let options = message.options;
  if (message.scenario) {
    const mod = (await import(message.scenario.module)) as Record<string, (data: unknown) => autocannon.Options>;
    options = mod[message.scenario.name](message.scenario.data);
  }
  const cpu = process.cpuUsage();
  const result = await autocannon({ connections: 32, duration: 5, ...options } as autocannon.Options);
  const used = process.cpuUsage(cpu);
  const answer: LoadAnswer = {
    type: 'result',
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx + result.errors,
    cpuMs: (used.user + used.system) / 1000,
    statusCodes: Object.fromEntries(Object.entries((result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {}).map(([code, s]) => [code, s.count])),
  };
  process.send!(answer);
});
process.send!({ type: 'ready' });
