/**
 * Entry of a script worker thread: runs one script at a time in QuickJS, each
 * in a fresh WebAssembly instance and a fresh runtime. The main thread owns the
 * worker's lifetime (its watchdog terminates a worker that overruns), serves
 * the host API over the synchronous port, and decides whether a worker that
 * finished a run is reused.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { newQuickJSWASMModule, type QuickJSWASMModule } from 'quickjs-emscripten';
import { toSpillwayError } from '../errors.js';
import type { BridgeReply, BridgeRequest, RunMessage, WorkerMessage } from './protocol.js';
import { runSession } from './quickjs-session.js';
import { SyncCaller } from './sync-call.js';

interface ScriptWorkerData {
  port: MessagePort;
  signal: SharedArrayBuffer;
}

if (parentPort === null) throw new Error('script-worker.js must run in a worker thread');
const parent = parentPort;
const data = workerData as ScriptWorkerData;
const caller = new SyncCaller<BridgeRequest, BridgeReply>(data.port, new Int32Array(data.signal));

// The next run's WebAssembly instance is prepared while the worker is idle.
let nextModule: Promise<QuickJSWASMModule> = newQuickJSWASMModule();

function post(message: WorkerMessage): void {
  parent.postMessage(message);
}

parent.on('message', (message: RunMessage) => {
  void (async () => {
    let outcome;
    try {
      const module = await nextModule;
      nextModule = newQuickJSWASMModule();
      outcome = runSession(message, {
        module,
        call: (request, transfer, deadline) => caller.call(request as Omit<BridgeRequest, 'id'>, transfer, deadline),
        flushConsole: (text) => post({ type: 'console', runId: message.runId, text }),
      });
    } catch (error) {
      outcome = { ok: false as const, error: toSpillwayError(error, 'WORKER_FAILED').toJSON(), retire: true };
    }
    post({ type: 'done', runId: message.runId, outcome });
  })();
});

// One throw-away run before reporting ready: V8 compiles the WebAssembly code
// lazily, so a worker's first real run would otherwise pay for that.
runSession(
  {
    type: 'run',
    runId: 0,
    source: 'return JSON.parse(JSON.stringify({ warm: [1, "x"] }));',
    filename: 'warm-up.js',
    argsJson: '{}',
    limits: {
      timeoutMs: 10_000,
      memoryBytes: 16 * 1024 * 1024,
      stackBytes: 64 * 1024,
      maxReadBytes: 0,
      maxWriteBytes: 0,
      maxOutputChars: 1000,
      argsMaxBytes: 0,
    },
    deadline: Date.now() + 10_000,
  },
  { module: await nextModule, call: () => undefined, flushConsole: () => undefined },
);
nextModule = newQuickJSWASMModule();
await nextModule;
post({ type: 'ready' });
