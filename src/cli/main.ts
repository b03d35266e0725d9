import { SpillwayError } from '../errors.js';
import { callCommand, callUsage } from './commands/call.js';
import { exportCommand, exportUsage } from './commands/export.js';
import { cleanupCommand, cleanupUsage } from './commands/cleanup.js';
import { demoCommand, demoUsage } from './commands/demo.js';
import { migrateSandboxCommand, migrateSandboxUsage } from './commands/migrate-sandbox.js';
import { serveCommand, serveUsage } from './commands/serve.js';
import { workerCommand, workerUsage } from './commands/worker.js';
import { upstreamsCommand, upstreamsUsage } from './commands/upstreams.js';
import { oneLine, processIo, type CliIo, type CommandHandler } from './output.js';
import { packageVersion } from './package-version.js';
import { startupError } from './startup-checks.js';
import { closeNames } from '../util/close-names.js';

interface Command {
  run: CommandHandler;
  usage: string;
  summary: string;
}

/** The verbs of `spillway`. Each lives in cli/commands/<verb>.ts. */
const commands = new Map<string, Command>([
  ['serve', { run: serveCommand, usage: serveUsage, summary: 'serve the tools over MCP (HTTP on 127.0.0.1, or --stdio)' }],
  ['call', { run: callCommand, usage: callUsage, summary: 'run one tool call through the host from a shell (for playbook runners)' }],
  ['demo', { run: demoCommand, usage: demoUsage, summary: 'a scripted walkthrough against the embedded demo database (no model needed)' }],
  ['export', { run: exportCommand, usage: exportUsage, summary: 'build a CSV/XLSX/DOCX/PPTX file from a JSONL, JSON or CSV table' }],
  ['upstreams', { run: upstreamsCommand, usage: upstreamsUsage, summary: 'connect to the configured upstream MCP servers and list their state and tools' }],
  ['worker', { run: workerCommand, usage: workerUsage, summary: 'build export jobs for a fleet (needs coordination.redis)' }],
  ['cleanup', { run: cleanupCommand, usage: cleanupUsage, summary: 'run the retention sweep once (--dry-run lists what would go)' }],
  [
    'migrate-sandbox',
    { run: migrateSandboxCommand, usage: migrateSandboxUsage, summary: 'move a sandbox of the old layout to <root>/<principal>/<conversation>' },
  ],
]);

function usage(): string {
  const lines = ['Usage: spillway <command> [options]', '', 'Commands:'];
  for (const [name, command] of commands) lines.push(`  ${name.padEnd(16)} ${command.summary}`);
  lines.push(
    '',
    'Options:',
    `  ${'-h, --help'.padEnd(16)} this list; \`spillway <command> --help\` (or \`spillway help <command>\`) shows a command's options`,
    `  ${'-v, --version'.padEnd(16)} print the version`,
    '',
    'Examples:',
    '  spillway serve                      MCP over HTTP at http://127.0.0.1:8787/mcp',
    '  spillway demo                       the walkthrough, no model needed',
    '  spillway call query_sql --set sql="SELECT 1 AS one"',
    '',
    'Configuration: --config FILE or SPILLWAY_CONFIG, laid over config/default.json (docs/configuration.md).',
    'Exit codes: 0 done, 1 failed (one line on stderr says why), 2 bad usage; some commands add their own (see their --help).',
  );
  return lines.join('\n');
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === undefined) {
    io.out(usage());
    return 2;
  }
  if (verb === '--version' || verb === '-v' || verb === 'version') {
    io.out(packageVersion());
    return 0;
  }
  if (verb === '--help' || verb === '-h' || verb === 'help') {
    const topic = rest[0] === undefined ? undefined : commands.get(rest[0]);
    if (rest[0] !== undefined && topic === undefined) return unknownCommand(io, rest[0]);
    io.out(topic?.usage ?? usage());
    return 0;
  }
  const command = commands.get(verb);
  if (command === undefined) return unknownCommand(io, verb);
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(command.usage);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof TypeError && (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`spillway ${verb}: ${oneLine(error.message).replace(/\.?$/, '.')} Run \`spillway ${verb} --help\` for its options.`);
      return 2;
    }
    const known = startupError(error);
    if (SpillwayError.is(known)) {
      // The code last, in brackets: what docs and scripts look for (docs/cli.md lists them per verb).
      io.err(`spillway ${verb}: ${oneLine(known.message)} [${known.code}]`);
      return 1;
    }
    throw error;
  }
}

function unknownCommand(io: CliIo, verb: string): number {
  const meant = verb.length < 3 ? undefined : closeNames(verb, commands.keys(), 1)[0];
  const hint = meant === undefined ? '' : ` (did you mean "${meant}"?)`;
  io.err(`spillway: unknown command "${verb}"${hint}; commands: ${[...commands.keys()].join(', ')}; run \`spillway --help\` for more.`);
  return 2;
}
