import { spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { childExit, spawnChild, type AfterHook } from './child-process.js';

export interface TestRedis {
  url: string;
  port: number;
  child: ChildProcess;
  /** Kills the server (SIGKILL) and waits for it to exit. */
  kill(): Promise<void>;
}

/** Why Redis tests cannot run here, or undefined when redis-server is installed. */
export function redisUnavailableReason(): string | undefined {
  const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return found.error === undefined && found.status === 0 ? undefined : 'redis-server is not installed (.ci/run installs the Debian package redis-server)';
}

/** A port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * Starts a throwaway redis-server on a free loopback port (no persistence),
 * stopped when the test ends. Resolves once the server says it accepts
 * connections.
 */
export async function startRedis(t: AfterHook): Promise<TestRedis> {
  const port = await freePort();
  const child = spawnChild(t, 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (/Ready to accept connections/i.test(output)) {
        child.stdout?.off('data', onData);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)));
  });
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    child,
    async kill() {
      const exited = childExit(child);
      child.kill('SIGKILL');
      await exited;
    },
  };
}
