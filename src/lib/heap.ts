import { setFlagsFromString } from 'node:v8';

/**
 * Bounds how far V8 lets the old generation grow past what its last full collection left alive before it
 * collects it again, for a server process (`serve`, `worker`). V8's own factor is 1.1 to 4 and, with the heap
 * limit a 24 GB host gives, is near 3 for a heap of this service's size: garbage that reaches the old
 * generation stays until the heap has roughly tripled. A server that takes 2,000-sample telemetry posts has
 * such garbage: part of each post outlives two young-generation collections once its text has been handed to
 * the Redis client, and is promoted. A bound keeps such a process near the level it had before a load
 * (bench/README.md, "Memory", has the figures); the cost is more frequent full collections, whose marking
 * runs mostly on a helper thread.
 *
 * `percent` 0 leaves V8's own heuristics. The flag is read at each full collection, so setting it at run time
 * takes effect from the next one; src/lib/heap.test.ts proves that it does.
 */
export function limitHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
