import os from 'node:os';

/**
 * Imported first by each process entry, before anything touches libuv's thread pool (it is sized
 * once, on first use). Password hashing runs there, 19 MiB per argon2id hash: with more threads than
 * cores the extra threads only add memory and contention (docs/BENCHMARKS.md, the RSS row). An
 * explicit UV_THREADPOOL_SIZE wins.
 */
process.env.UV_THREADPOOL_SIZE ??= String(Math.max(2, os.availableParallelism()));

/** The threads password hashing runs on: libuv's pool as sized above (or by UV_THREADPOOL_SIZE). */
export function hashingThreads(): number {
  const size = Number(process.env.UV_THREADPOOL_SIZE);
  return Number.isSafeInteger(size) && size >= 1 ? size : Math.max(2, os.availableParallelism());
}
