import { SpillwayError } from '../errors.js';
import { oneLine, processIo, type CliIo, type CommandHandler } from './output.js';
import { packageVersion } from './package-version.js';
import { startupError } from './startup-checks.js';
import { closeNames } from '../util/close-names.js';

interface LoadedCommand {
  run: CommandHandler;
  usage: string;
}

interface Command {
  summary: string;
  /** The verb's module, imported on use: one verb never pays for loading the others' stacks (MCP, HTTP, metrics). */
  load: () => Promise<LoadedCommand>;
}

/** A verb: its name, its line in the usage, and its module (which exports `command`). */
type Verb = [name: string, summary: string, load: () => Promise<{ command: LoadedCommand }>];

/** The verbs of `spillway`. Each lives in cli/commands/<verb>.ts. */
const verbs: Verb[] = [
  ['serve', 'serve the tools over MCP (HTTP on 127.0.0.1, or --stdio)', () => import('./commands/serve.js')],
  ['call', 'run one tool call through the host from a shell (for playbook runners)', () => import('./commands/call.js')],
  ['demo', 'a scripted walkthrough against the embedded demo database (no model needed)', () => import('./commands/demo.js')],
  ['export', 'build a CSV/XLSX/DOCX/PPTX file from a JSONL, JSON or CSV table', () => import('./commands/export.js')],
  ['upstreams', 'connect to the configured upstream MCP servers and list their state and tools', () => import('./commands/upstreams.js')],
  ['worker', 'build export jobs for a fleet (needs coordination.redis)', () => import('./commands/worker.js')],
  ['cleanup', 'run the retention sweep once (--dry-run lists what would go)', () => import('./commands/cleanup.js')],
  ['migrate-sandbox', 'move a sandbox of the old layout to <root>/<principal>/<conversation>', () => import('./commands/migrate-sandbox.js')],
];
const commands = new Map<string, Command>(verbs.map(([name, summary, load]) => [name, { summary, load: async () => (await load()).command }]));

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
    io.out(topic === undefined ? usage() : (await topic.load()).usage);
    return 0;
  }
  const entry = commands.get(verb);
  if (entry === undefined) return unknownCommand(io, verb);
  const command = await entry.load();
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
