import { SpillwayError } from '../errors.js';
import { callCommand, callUsage } from './commands/call.js';
import { exportCommand, exportUsage } from './commands/export.js';
import { cleanupCommand, cleanupUsage } from './commands/cleanup.js';
import { demoCommand, demoUsage } from './commands/demo.js';
import { migrateSandboxCommand, migrateSandboxUsage } from './commands/migrate-sandbox.js';
import { serveCommand, serveUsage } from './commands/serve.js';
import { workerCommand, workerUsage } from './commands/worker.js';
import { upstreamsCommand, upstreamsUsage } from './commands/upstreams.js';
import { processIo, type CliIo, type CommandHandler } from './output.js';

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
  lines.push('', "Run `spillway <command> --help` for a command's options. Configuration: --config FILE or SPILLWAY_CONFIG.");
  return lines.join('\n');
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === '--help' || verb === '-h' || verb === 'help') {
    io.out(usage());
    return verb === undefined ? 2 : 0;
  }
  const command = commands.get(verb);
  if (command === undefined) {
    io.err(`spillway: unknown command "${verb}"\n\n${usage()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(command.usage);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (SpillwayError.is(error)) {
      io.err(`spillway ${verb}: ${error.message}`);
      return 1;
    }
    if (error instanceof TypeError && (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`spillway ${verb}: ${error.message}\n\n${command.usage}`);
      return 2;
    }
    throw error;
  }
}
