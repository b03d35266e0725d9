import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten';
import { SpillwayError, toSpillwayError, type SerializedError } from '../errors.js';
import { failureOutcome } from './script-error.js';
import { hasNul, newGuestString } from './guest-strings.js';
import { preludeFilename, preludeSource } from './guest-prelude.js';
import type { BridgeReply, BridgeRequest, RunMessage, RunOutcome } from './protocol.js';
import { rowsToGuestJson } from './rows-to-guest.js';
import { limitError, type ScriptLimits } from './script-limits.js';
import { wrapScript } from './script-source.js';

type RequestBody = BridgeRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

export interface SessionDependencies {
  /** A QuickJS module instance used by this run only (fresh WebAssembly memory). */
  module: QuickJSWASMModule;
  /** A synchronous host-API call to the main thread; undefined when the deadline passed first. */
  call(request: RequestBody, transfer: ArrayBuffer[], deadline: number): BridgeReply | undefined;
  /** Sends console output to the main thread (batched). */
  flushConsole(text: string): void;
}

const consoleFlushChars = 64 * 1024;
/** Output is also sent at least this often, so what a script printed survives the watchdog terminating it. */
const consoleFlushMs = 50;

/** A host-API failure as the guest sees it: a catchable error the prelude turns into a SpillwayError. */
function hostError(error: SerializedError): Error {
  const thrown = new Error(JSON.stringify({ code: error.code, message: error.message }));
  thrown.name = 'SpillwayHostError';
  return thrown;
}

/**
 * One run of one script in a fresh QuickJS runtime: limits set, the host API
 * installed, the script compiled and driven to completion, and everything
 * disposed. Synchronous: file access blocks on the main thread's reply.
 */
export function runSession(run: RunMessage, dependencies: SessionDependencies): RunOutcome {
  const session = new Session(run, dependencies);
  return session.execute();
}

class Session {
  private fatal: SerializedError | undefined;
  private consoleBuffer = '';
  private consoleChars = 0;
  private lastFlush = 0;
  private interrupted = false;
  private readonly limits: ScriptLimits;

  constructor(
    private readonly run: RunMessage,
    private readonly dependencies: SessionDependencies,
  ) {
    this.limits = run.limits;
  }

  execute(): RunOutcome {
    let runtime: QuickJSRuntime | undefined;
    let context: QuickJSContext | undefined;
    const handles: QuickJSHandle[] = [];
    let outcome: RunOutcome;
    let retire = false;
    try {
      runtime = this.dependencies.module.newRuntime({
        memoryLimitBytes: this.limits.memoryBytes,
        maxStackSizeBytes: this.limits.stackBytes,
        interruptHandler: () => {
          if (this.fatal !== undefined || Date.now() >= this.run.deadline) this.interrupted = true;
          return this.interrupted;
        },
        moduleLoader: (name) => ({
          error: new Error(`Modules cannot be loaded in run_script (asked for ${JSON.stringify(name)}); there is no import or require.`),
        }),
      });
      context = runtime.newContext();
      outcome = this.evaluate(runtime, context, handles);
    } catch (error) {
      retire = true;
      outcome = { ok: false, error: toSpillwayError(error, 'WORKER_FAILED').toJSON(), retire: true };
    } finally {
      for (const handle of handles.reverse()) {
        try {
          if (handle.alive) handle.dispose();
        } catch {
          retire = true;
        }
      }
      try {
        context?.dispose();
        runtime?.dispose();
      } catch {
        // A runtime that cannot be freed cleanly (after out-of-memory, say) is not reused.
        retire = true;
      }
      this.flush(true);
    }
    return { ...outcome, retire: outcome.retire || retire };
  }

  private evaluate(runtime: QuickJSRuntime, context: QuickJSContext, handles: QuickJSHandle[]): RunOutcome {
    const keep = (handle: QuickJSHandle): QuickJSHandle => {
      handles.push(handle);
      return handle;
    };
    const host = keep(context.newFunction('host', (op, a, b, c) => this.hostCall(context, op, a, b, c)));
    const prelude = context.evalCode(preludeSource, preludeFilename);
    if (prelude.error) {
      const dumped = context.dump(keep(prelude.error)) as unknown;
      throw new SpillwayError('INTERNAL', `The script prelude failed to load: ${JSON.stringify(dumped)}`);
    }
    const preludeFunction = keep(prelude.value);
    const argsJson = keep(context.newString(this.run.argsJson));
    const started = context.callFunction(preludeFunction, context.undefined, host, argsJson);
    if (started.error) {
      keep(started.error);
      return this.failure(context, started.error, false);
    }
    const start = keep(started.value);

    const compiled = context.evalCode(wrapScript(this.run.source), this.run.filename);
    if (compiled.error) {
      keep(compiled.error);
      return this.failure(context, compiled.error, true);
    }
    const main = keep(compiled.value);
    const called = context.callFunction(start, context.undefined, main);
    if (called.error) {
      keep(called.error);
      return this.failure(context, called.error, false);
    }
    const promise = keep(called.value);

    // Host functions are synchronous, so once the job queue is empty nothing
    // can ever settle a promise that is still pending.
    while (runtime.hasPendingJob() && this.fatal === undefined) {
      const jobs = runtime.executePendingJobs();
      if (jobs.error) {
        keep(jobs.error);
        return this.failure(context, jobs.error, false);
      }
    }
    if (this.fatal !== undefined) return { ok: false, error: this.fatal, retire: true };

    const state = context.getPromiseState(promise);
    if (state.type === 'pending') {
      return {
        ok: false,
        error: new SpillwayError(
          'SCRIPT_ERROR',
          'The script awaited a promise that never settles. run_script has no timers, network or events, and its file functions return at once, so nothing can resolve it; remove that await (or the new Promise that is never resolved).',
          { reason: 'never-settles' },
        ).toJSON(),
        retire: false,
      };
    }
    if (state.type === 'rejected') {
      keep(state.error);
      return this.failure(context, state.error, false);
    }
    if (!state.notAPromise) keep(state.value);
    const resultJson = context.getString(state.value);
    if (resultJson.length > this.limits.maxOutputChars) {
      return {
        ok: false,
        error: limitError(
          this.limits,
          'maxOutputChars',
          `The return value is ${resultJson.length.toLocaleString('en-US')} characters of JSON`,
          'Write large data to a file with writeJson("outputs/….json", value) or writeJson("args/….json", value) and return its path instead.',
        ).toJSON(),
        retire: false,
      };
    }
    return { ok: true, resultJson, retire: false };
  }

  /** Turns an exception handle into the run's outcome; a limit the host detected wins over what the guest threw. */
  private failure(context: QuickJSContext, errorHandle: QuickJSHandle, compiling: boolean): RunOutcome {
    if (this.fatal !== undefined) return { ok: false, error: this.fatal, retire: true };
    let thrown: unknown;
    try {
      thrown = context.dump(errorHandle);
    } catch {
      // Dumping needs memory too; it fails when the heap is exhausted.
      thrown = { name: 'InternalError', message: 'out of memory' };
    }
    return failureOutcome(thrown, { filename: this.run.filename, source: this.run.source, compiling, limits: this.limits });
  }

  /** The one raw host function; the prelude wraps it into readText, writeJson, console.log, ... */
  private hostCall(context: QuickJSContext, opHandle: QuickJSHandle, a?: QuickJSHandle, b?: QuickJSHandle, c?: QuickJSHandle): QuickJSHandle | undefined {
    if (this.fatal !== undefined) throw hostError(this.fatal);
    const op = context.getString(opHandle);
    if (op === 'log') {
      this.log(a === undefined ? '' : context.getString(a));
      return undefined;
    }
    this.flush(true);
    try {
      switch (op) {
        case 'read': {
          const reply = this.expect(this.request({ op: 'read', path: context.getString(required(a)) }), 'read');
          if (!hasNul(reply.data)) return newGuestString(context, reply.data);
          // C strings stop at NUL: such text crosses as JSON and the prelude parses it.
          const wrapper = context.newObject();
          const json = Buffer.from(JSON.stringify(Buffer.from(reply.data.buffer, reply.data.byteOffset, reply.data.byteLength).toString('utf8')), 'utf8');
          const text = newGuestString(context, json);
          context.setProp(wrapper, 'json', text);
          text.dispose();
          return wrapper;
        }
        case 'rows': {
          const offset = context.getNumber(required(b));
          const rawLimit = context.getNumber(required(c));
          const limit = rawLimit < 0 ? undefined : rawLimit;
          const reply = this.expect(this.request({ op: 'rows', path: context.getString(required(a)), offset, limit }), 'rows');
          const json = rowsToGuestJson(reply.slice, reply.relative, offset, limit);
          return newGuestString(context, Buffer.from(json, 'utf8'));
        }
        case 'list': {
          const dir = context.getString(required(a));
          const reply = this.expect(this.request({ op: 'list', dir: dir === '' ? undefined : dir }), 'list');
          return newGuestString(context, Buffer.from(reply.json, 'utf8'));
        }
        case 'write': {
          const path = context.getString(required(a));
          let text = context.getString(required(b));
          if (c !== undefined && context.dump(c) === true) text = JSON.parse(text) as string;
          // A fresh buffer (TextEncoder never pools), so it can be transferred.
          const data = new TextEncoder().encode(text);
          const reply = this.expect(this.request({ op: 'write', path, data }, [data.buffer as ArrayBuffer]), 'write');
          return context.newString(reply.relative);
        }
        default:
          throw new SpillwayError('INTERNAL', `Unknown host operation ${JSON.stringify(op)}.`);
      }
    } catch (error) {
      if (error instanceof Error && error.name === 'SpillwayHostError') throw error;
      throw hostError(toSpillwayError(error).toJSON());
    }
  }

  private request(request: RequestBody, transfer: ArrayBuffer[] = []): BridgeReply {
    const reply = this.dependencies.call(request, transfer, this.run.deadline);
    if (reply === undefined) {
      this.fatal = limitError(
        this.limits,
        'timeoutMs',
        'The script ran out of time while waiting for a file',
        'Read less data in one run, or read pages with readRows(path, { offset, limit }).',
      ).toJSON();
      throw hostError(this.fatal);
    }
    if (!reply.ok) {
      if (reply.fatal) this.fatal = reply.error;
      throw hostError(reply.error);
    }
    return reply;
  }

  private expect<Op extends (BridgeReply extends infer R ? (R extends { ok: true; op: infer O } ? O : never) : never)>(
    reply: BridgeReply,
    op: Op,
  ): Extract<BridgeReply, { ok: true; op: Op }> {
    if (!reply.ok || reply.op !== op) throw new SpillwayError('INTERNAL', `The host answered a ${op} request with ${reply.ok ? reply.op : 'an error'}.`);
    return reply as Extract<BridgeReply, { ok: true; op: Op }>;
  }

  private log(text: string): void {
    const room = this.limits.maxOutputChars - this.consoleChars;
    if (text.length > room) {
      this.consoleBuffer += text.slice(0, Math.max(0, room));
      this.consoleChars = this.limits.maxOutputChars;
      this.fatal = limitError(
        this.limits,
        'maxOutputChars',
        'The console output is too long',
        'Print a summary (counts, a few sample rows) and write the full data to a file with writeJson or writeText.',
      ).toJSON();
      throw hostError(this.fatal);
    }
    this.consoleBuffer += text;
    this.consoleChars += text.length;
    this.flush(false);
  }

  private flush(always: boolean): void {
    if (this.consoleBuffer.length === 0) return;
    const now = Date.now();
    if (!always && this.consoleBuffer.length < consoleFlushChars && now - this.lastFlush < consoleFlushMs) return;
    this.lastFlush = now;
    const text = this.consoleBuffer;
    this.consoleBuffer = '';
    this.dependencies.flushConsole(text);
  }
}

function required(handle: QuickJSHandle | undefined): QuickJSHandle {
  if (handle === undefined) throw new SpillwayError('INTERNAL', 'A host function was called without its arguments.');
  return handle;
}
