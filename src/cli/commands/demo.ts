import { parseArgs } from 'node:util';
import { runDemo } from '../../demo/run-demo.js';
import { startRuntime } from '../../runtime/start-runtime.js';
import type { CliIo } from '../output.js';

export const demoUsage = `spillway demo [--config FILE] [--conversation ID]

Runs a scripted walkthrough in one process, no model needed: an in-memory MCP
client queries the embedded demo database (321 rows), the result spills to a
sandbox file, export_table writes an XLSX, build_document a DOCX, and
call_with_args_file sends the rows to a local echo tool. Each step is printed
as the model would see it; the files stay in the sandbox for you to open.`;

export async function demoCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { config: { type: 'string' }, conversation: { type: 'string' } },
    strict: true,
  });
  const runtime = await startRuntime({ configFile: values.config });
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
