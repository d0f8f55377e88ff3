/**
 * A bar simulator for demos and benchmarks: registers espresso machines at a site (or reuses the ones it
 * registered before, by code), issues each a bar machine token, and posts realistic shots through the shot
 * channel, one post per shot as real machines do. Shots scatter around a good recipe (18 g, 1:2.1, 28 s);
 * a faulty group head, when asked for, drifts: half its shots run channeling-fast or over-extract.
 */
export interface SimulatorOptions {
  baseUrl: string;
  apiKey: string;
  siteId: string;
  machines: number;
  groups: number;
  /** Shots per minute per group head. */
  rate: number;
  /** Stop after this many seconds; runs until `signal` aborts when absent. */
  durationSeconds?: number;
  /** A 1-based group head on the first machine that pulls bad shots. */
  faultyGroup?: number;
  signal?: AbortSignal;
  onProgress?: (stats: SimulatorStats) => void;
}

export interface SimulatorStats {
  posted: number;
  accepted: number;
  refused: number;
  elapsedS: number;
}

async function rpc<T>(options: SimulatorOptions, operation: string, input: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${options.baseUrl}/rpc/v1/${operation}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** The simulator's machines at the site (codes SIM-1…SIM-n), registered when missing; each with a fresh token. */
export async function prepareBar(options: SimulatorOptions): Promise<{ machineId: string; token: string }[]> {
  const listed = await rpc<{ items: { id: string; code: string }[]; detail?: string }>(options, 'cafe.listMachines', { filter: { siteId: options.siteId }, page: { limit: 200 } });
  if (listed.status !== 200) throw new Error(`listMachines: ${listed.status} ${JSON.stringify(listed.body)}`);
  const byCode = new Map(listed.body.items.map((m) => [m.code, m.id]));
  const bar: { machineId: string; token: string }[] = [];
  for (let i = 1; i <= options.machines; i++) {
    let machineId = byCode.get(`SIM-${i}`);
    if (!machineId) {
      const made = await rpc<{ id: string }>(options, 'cafe.registerMachine', {
        siteId: options.siteId,
        name: `Simulated espresso machine ${i}`,
        code: `SIM-${i}`,
        kind: 'espresso_machine',
        groupCount: options.groups,
      });
      if (made.status !== 200) throw new Error(`registerMachine: ${made.status} ${JSON.stringify(made.body)}`);
      machineId = made.body.id;
    }
    const token = await rpc<{ token: string }>(options, 'cafe.issueBarMachineToken', { machineId, expiresInHours: 24 });
    if (token.status !== 200) throw new Error(`issueBarMachineToken: ${token.status} ${JSON.stringify(token.body)}`);
    bar.push({ machineId, token: token.body.token });
  }
  return bar;
}

/** Normal noise (Box–Muller), rounded to one decimal. */
const around = (mean: number, spread: number) =>
  Math.round((mean + spread * Math.sqrt(-2 * Math.log(1 - Math.random())) * Math.cos(2 * Math.PI * Math.random())) * 10) / 10;

let sequence = 0;
export function simulatedShot(group: number, faulty: boolean, startedAt = new Date()) {
  const doseG = around(18, 0.3);
  let durationS = around(28, 1.8);
  let ratio = around(2.1, 0.08);
  if (faulty && Math.random() < 0.5) {
    if (Math.random() < 0.5) durationS = around(14, 1.5); // channeling: the water found a path
    else [durationS, ratio] = [around(38, 2), around(2.7, 0.1)]; // choked and over-extracted
  }
  const yieldG = Math.round(doseG * ratio * 10) / 10;
  const samples = Math.max(1, Math.round(durationS));
  return {
    shotId: `sim-${startedAt.getTime().toString(36)}-${(++sequence).toString(36)}`,
    group,
    startedAt: startedAt.toISOString(),
    durationS,
    doseG,
    yieldG,
    pressureBar: Array.from({ length: samples }, (_, i) => Math.round(Math.min(9, i * 1.5) * 10) / 10),
  };
}

/** Runs the bar until the duration passes or the signal aborts; answers the totals. */
export async function simulateBar(options: SimulatorOptions): Promise<SimulatorStats> {
  const bar = await prepareBar(options);
  const stats: SimulatorStats = { posted: 0, accepted: 0, refused: 0, elapsedS: 0 };
  const started = Date.now();
  const until = options.durationSeconds !== undefined ? started + options.durationSeconds * 1000 : Infinity;
  const meanGapMs = 60_000 / options.rate;
  const done = () => options.signal?.aborted || Date.now() >= until;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(ms, until - Date.now()))));

  const groupHead = async (machine: { machineId: string; token: string }, group: number, faulty: boolean) => {
    // Staggered starts, then gaps drawn around the mean: a barista does not pull on a metronome.
    await sleep(Math.random() * meanGapMs);
    while (!done()) {
      const response = await fetch(`${options.baseUrl}/ingest/v1/cafe/machines/${machine.machineId}/shots`, {
        method: 'POST',
        headers: { authorization: `Bearer ${machine.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ shots: [simulatedShot(group, faulty)] }),
      }).catch(() => undefined);
      stats.posted++;
      if (response?.status === 202) stats.accepted++;
      else stats.refused++;
      await response?.arrayBuffer().catch(() => undefined);
      // Over the token's budget: wait as told, like a well-behaved machine.
      const retryAfter = response?.status === 429 ? Number(response.headers.get('retry-after') ?? 1) : 0;
      await sleep(Math.max(retryAfter * 1000, meanGapMs * (0.5 + Math.random())));
    }
  };

  const progress = options.onProgress ? setInterval(() => options.onProgress!({ ...stats, elapsedS: (Date.now() - started) / 1000 }), 10_000) : undefined;
  try {
    await Promise.all(
      bar.flatMap((machine, m) =>
        Array.from({ length: options.groups }, (_, g) => groupHead(machine, g + 1, m === 0 && options.faultyGroup === g + 1)),
      ),
    );
  } finally {
    clearInterval(progress);
  }
  return { ...stats, elapsedS: (Date.now() - started) / 1000 };
}
