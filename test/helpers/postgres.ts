import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A PostgreSQL server for tests: the URL and a way to stop it. */
export interface TestPostgres {
  url: string;
  stop(): Promise<void>;
}

export type PostgresAvailability = { server: TestPostgres } | { skip: string };

/** The environment variable .ci/run sets when it started a throwaway cluster. */
export const postgresUrlVariable = 'SPILLWAY_TEST_POSTGRES_URL';

function findBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((name) => existsSync(path.join(root, name, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return path.join(root, versions[0], 'bin');
  }
  try {
    const bindir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (existsSync(path.join(bindir, 'initdb'))) return bindir;
  } catch {
    // no pg_config
  }
  return undefined;
}

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

function userId(name: string): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Uses the server named by SPILLWAY_TEST_POSTGRES_URL, or starts a throwaway
 * cluster (initdb in a temp folder, trust auth, 127.0.0.1 on a free port) when
 * Debian's postgresql binaries are installed. As root the cluster runs as the
 * `postgres` user (initdb refuses root). Otherwise: a reason to skip.
 */
export async function startTestPostgres(): Promise<PostgresAvailability> {
  const fromEnv = process.env[postgresUrlVariable];
  if (fromEnv !== undefined && fromEnv !== '') return { server: { url: fromEnv, stop: async () => undefined } };
  const bin = findBinaries();
  if (bin === undefined)
    return { skip: `PostgreSQL is not installed (no initdb under /usr/lib/postgresql/*/bin or pg_config) and ${postgresUrlVariable} is not set` };
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? userId('postgres') : undefined;
  if (asRoot && owner === undefined) return { skip: 'running as root and there is no "postgres" user to run a throwaway cluster as' };
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-pg-'));
  const data = path.join(dir, 'data');
  const run = (program: string, args: string[]) => {
    const command = asRoot ? 'setpriv' : path.join(bin, program);
    const fullArgs = asRoot ? ['--reuid', String(owner?.uid), '--regid', String(owner?.gid), '--clear-groups', path.join(bin, program), ...args] : args;
    return execFileSync(command, fullArgs, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
  };
  try {
    if (owner !== undefined) {
      await chown(dir, owner.uid, owner.gid);
      await chmod(dir, 0o700);
    }
    const port = await freePort();
    run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--no-instructions']);
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      path.join(dir, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off`,
      'start',
    ]);
    return {
      server: {
        url: `postgres://postgres@127.0.0.1:${port}/postgres`,
        async stop() {
          try {
            run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
          } finally {
            await rm(dir, { recursive: true, force: true });
          }
        },
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    const output = (error as { stderr?: string }).stderr ?? (error as Error).message;
    return { skip: `a throwaway PostgreSQL cluster could not be started: ${output.trim().slice(0, 400)}` };
  }
}
