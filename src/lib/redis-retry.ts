/**
 * ioredis's reconnection delays for every Redis connection the service opens: doubling from 50 ms, at most
 * 1 s (plus up to 100 ms of jitter). ioredis's own default waits up to 5 s between attempts, so after an
 * outage roast posts were refused, streams waited and rate limits stayed per process up to 5 s longer than
 * Redis was away; an attempt a second against an absent Redis costs nothing worth saving.
 */
export const redisRetryStrategy = (attempt: number): number => Math.min(50 * 2 ** (attempt - 1), 1000) + Math.floor(Math.random() * 100);
