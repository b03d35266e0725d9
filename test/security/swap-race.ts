import path from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * Swaps what a path names, as fast as a thread can, for a bounded number of
 * rounds (by count, never by time): each round moves the real object away,
 * puts each alternate (a symlink, a FIFO, another folder) in its place in
 * turn, and puts the real object back. It runs in its own thread, so the
 * swaps really interleave with the host's work on the main thread.
 */
export interface SwapRace {
  /** Resolves with the number of completed rounds when the swapping is over and the real object is back. */
  done: Promise<number>;
  /** True once `done` has resolved. */
  finished(): boolean;
  /** Resolves when the thread has begun swapping (a thread takes a while to start). */
  started: Promise<void>;
}

const swapper = `
const fs = require('node:fs');
const { workerData, parentPort } = require('node:worker_threads');
const { target, keep, alternates, rounds } = workerData;
const move = (from, to) => { try { fs.renameSync(from, to); return true; } catch { return false; } };
let completed = 0;
parentPort.postMessage('started');
for (let round = 0; round < rounds; round += 1) {
  if (!move(target, keep)) continue;
  for (const alternate of alternates) {
    if (move(alternate, target)) move(target, alternate);
  }
  if (move(keep, target)) completed += 1;
}
// Whatever happened, leave the real object at its name.
try { if (!fs.lstatSync(target).isDirectory() && !fs.lstatSync(target).isFile()) fs.unlinkSync(target); } catch {}
move(keep, target);
parentPort.postMessage(completed);
`;

export function startSwapRace(options: { target: string; alternates: readonly string[]; rounds: number }): SwapRace {
  const keep = path.join(path.dirname(options.target), `.swap-keep-${path.basename(options.target)}`);
  const worker = new Worker(swapper, { eval: true, workerData: { target: options.target, keep, alternates: options.alternates, rounds: options.rounds } });
  let finished = false;
  let onStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (onStarted = resolve));
  const done = new Promise<number>((resolve, reject) => {
    worker.on('message', (message: number | 'started') => (message === 'started' ? onStarted() : resolve(message)));
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`swapper exited with ${code}`))));
  }).finally(() => {
    finished = true;
  });
  done.catch(() => onStarted());
  return { done, started, finished: () => finished };
}

/** Runs `step` again and again while the race lasts (at least `minimum` times, at most `maximum`); returns what each step returned. */
export async function whileRacing<T>(race: SwapRace, step: (index: number) => Promise<T>, options: { minimum?: number; maximum: number }): Promise<T[]> {
  const results: T[] = [];
  await race.started;
  for (let index = 0; index < options.maximum && (!race.finished() || index < (options.minimum ?? 1)); index += 1) {
    results.push(await step(index));
  }
  await race.done;
  return results;
}
