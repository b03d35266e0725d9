/**
 * A throwaway redis-server for the fleet benches: a free loopback port, no
 * persistence, its working folder in a temp folder, stopped with SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from '../test/helpers/redis-server.js';

export { redisUnavailableReason } from '../test/helpers/redis-server.js';

export interface BenchRedis {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts redis-server on a free 127.0.0.1 port, working folder `dir`; resolves once it accepts connections. */
export async function startBenchRedis(dir: string): Promise<BenchRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no', '--dir', dir],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (!/Ready to accept connections/i.test(output)) return;
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      resolve();
    };
    const onExit = (code: number | null) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`));
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
