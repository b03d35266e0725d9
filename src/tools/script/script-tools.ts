import type { Host } from '../../host/host.js';
import type { ToolDefinition } from '../../host/tool.js';
import { runScriptTool } from './run-script-tool.js';
import { ScriptRunner, scriptGateOptions } from '../../script/script-runner.js';
import { writeFileTool } from './write-file.js';

/**
 * The script capability: run_script (QuickJS on worker threads) and
 * write_file. The runner's workers start on the first call and are
 * terminated when the host closes.
 */
export function scriptTools(host: Host): ToolDefinition[] {
  const caps = {
    concurrency: () => host.config.workers.poolSize,
    maxQueue: () => host.config.workers.maxQueue,
    queueWaitMs: () => host.config.server.queueWaitMs,
  };
  const runner = new ScriptRunner({ logger: host.logger, ...caps, gate: host.queues.gate(scriptGateOptions(caps)) });
  host.onClose(() => runner.close());
  host.setHealthSource('scripts', () => runner.stats());
  return [runScriptTool(runner), writeFileTool];
}
