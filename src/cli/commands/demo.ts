import { parseArgs } from 'node:util';
import { loadConfig } from '../../config/load-config.js';
import { runDemo } from '../../demo/run-demo.js';
import { createLogger } from '../../log/logger.js';
import { startRuntime } from '../../runtime/start-runtime.js';
import { commandLogLevel } from '../command-log-level.js';
import type { CliIo } from '../output.js';

export const demoUsage = `spillway demo [--config FILE] [--conversation ID] [--verbose]

Runs a scripted walkthrough in one process, no model needed: an in-memory MCP
client queries the embedded demo database (321 rows), the result spills to a
sandbox file, export_table writes an XLSX, build_document a DOCX, and
call_with_args_file sends the rows to a local echo tool. Each step is printed
as the model would see it; the files stay in the sandbox for you to open.

  --config FILE      configuration (default SPILLWAY_CONFIG, then config/default.json)
  --conversation ID  the sandbox folder to run in (default demo-<time>)
  --verbose          also print the server's log lines (JSON on stderr); without it
                     only warnings and errors are logged, unless log.level is set
                     to another level than info

Examples:
  spillway demo
  spillway demo --conversation my-first-demo --verbose`;

export async function demoCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { config: { type: 'string' }, conversation: { type: 'string' }, verbose: { type: 'boolean', default: false } },
    strict: true,
  });
  const config = loadConfig({ file: values.config });
  // The walkthrough is the output: info lines would interleave with it.
  const logger = createLogger(commandLogLevel(config.log.level, values.verbose));
  const runtime = await startRuntime({ configFile: values.config, logger });
  try {
    const conversationId = values.conversation ?? `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const report = await runDemo({ host: runtime.host, conversationId, print: (line) => io.out(line) });
    const hasOutputs = report.files.some((file) => file.path.startsWith('outputs/'));
    io.out(
      `\n${hasOutputs ? `Open the files in ${report.folder}/outputs` : `The files are in ${report.folder}`}. Next: \`npm start\` and connect a client (docs/connect.md).`,
    );
    return report.steps.some((step) => step.status === 'failed') ? 1 : 0;
  } finally {
    await runtime.stop();
  }
}

/** The verb as `spillway` runs it. */
export const command = { run: demoCommand, usage: demoUsage };
