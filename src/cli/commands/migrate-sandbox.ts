import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../config/load-config.js';
import { SpillwayError } from '../../errors.js';
import { defaultPrincipal, migrateLayout, sandboxMarker, type MigrationStep } from '../../sandbox/index.js';
import type { CliIo } from '../output.js';

export const migrateSandboxUsage = `spillway migrate-sandbox [--root DIR] [--principal local] [--dry-run] [--config FILE]

Moves every conversation folder of the layout before principals
(<root>/<conversation>/results/...) to <root>/<principal>/<conversation>/, one
rename per folder, and makes the folders 0700. Stop spillway first: it refuses
to serve (SANDBOX_LAYOUT_OLD) until this has run. Safe to run again: a
finished sandbox has nothing to move, and a run stopped halfway is finished
by the next.

  --root DIR         the sandbox root (default sandbox.root); it must hold .spillway-sandbox
  --principal NAME   whose conversations they become (default local, the principal
                     of stdio and of HTTP without auth)
  --dry-run          print what would move; move nothing
  --config FILE      configuration file (default SPILLWAY_CONFIG, then config/default.json)

Exit status: 0 done (or nothing to do); 1 could not run (no marker, bad
principal); 2 bad options; 3 some folders were left because the destination
already exists (see the output).

Examples:
  spillway migrate-sandbox --dry-run
  spillway migrate-sandbox --root /var/lib/spillway/sandbox --principal alice`;

export async function migrateSandboxCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      root: { type: 'string' },
      principal: { type: 'string', default: defaultPrincipal },
      'dry-run': { type: 'boolean', default: false },
      config: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const root = await checkRoot(values.root ?? loadConfig({ file: values.config }).sandbox.root);
  const dryRun = values['dry-run'];
  const print = (step: MigrationStep) => {
    const verb = step.outcome === 'moved' ? 'moved' : step.outcome === 'would-move' ? 'would move' : 'left (destination exists)';
    io.out(`${verb}: ${step.from}/ -> ${step.to}/`);
  };
  const steps = await migrateLayout({ root, principal: values.principal, dryRun, onStep: print });
  const count = (outcome: MigrationStep['outcome']) => steps.filter((step) => step.outcome === outcome).length;
  if (steps.length === 0) io.out(`${root}: nothing to migrate (already <root>/<principal>/<conversation>).`);
  else if (dryRun) io.out(`${root}: ${count('would-move')} conversation folder(s) would move to ${values.principal}/ (dry run, nothing moved).`);
  else io.out(`${root}: moved ${count('moved')} conversation folder(s) to ${values.principal}/${count('exists') > 0 ? `; ${count('exists')} left` : ''}.`);
  return count('exists') > 0 ? 3 : 0;
}

/** The real root, which must be a spillway sandbox: a typo in --root never moves a home folder's contents. */
async function checkRoot(root: string): Promise<string> {
  const real = await realpath(path.resolve(root)).catch((error: NodeJS.ErrnoException) => {
    throw new SpillwayError('SANDBOX_ROOT_INVALID', `The sandbox root ${root} cannot be opened (${error.code ?? error.message}).`, { root });
  });
  const marker = await lstat(path.join(real, sandboxMarker)).catch(() => undefined);
  if (marker === undefined || !marker.isFile()) {
    throw new SpillwayError(
      'SANDBOX_ROOT_INVALID',
      `Refusing to migrate ${real}: it has no ${sandboxMarker} marker file, so it may not be a spillway sandbox.`,
      {
        root: real,
      },
    );
  }
  return real;
}

/** The verb as `spillway` runs it. */
export const command = { run: migrateSandboxCommand, usage: migrateSandboxUsage };
