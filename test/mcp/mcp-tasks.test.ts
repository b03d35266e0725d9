import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  McpError,
  TaskStatusNotificationSchema,
  type CallToolResult,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import { startHttpFront } from '../../src/mcp/http-server.js';
import { makeRows, tempHost } from '../helpers/temp-host.js';

/**
 * Long calls as MCP tasks (task-augmented tools/call, 2025-11-25), each
 * through a real SDK client over Streamable HTTP against a real host.
 */

/** A long-running test tool that waits until the test opens its gate (or its signal aborts). */
interface Gate {
  /** Resolves with the call's signal once the handler runs. */
  entered: Promise<AbortSignal>;
  open(): void;
}

interface Session {
  client: Client;
  /** Its conversation: the session id. */
  conversation: string;
  /** Resolves with the next notifications/tasks/status of `taskId` whose status is `status`. */
  status(taskId: string, status: Task['status']): Promise<Task>;
}

async function setUp(t: TestContext, overrides: Record<string, unknown> = {}, now?: () => number) {
  const env = await tempHost(overrides);
  t.after(() => env.cleanup());
  const rows = makeRows(2000);
  env.host.registerTool({ name: 'rows', description: 'rows', inputSchema: { type: 'object' }, handler: () => ({ value: rows }) });
  const gates: Gate[] = [];
  /** The gate of the next call of `gated`. */
  const nextGate = (): Gate => {
    let enter!: (signal: AbortSignal) => void;
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    const gate: Gate = { entered: new Promise((resolve) => (enter = resolve)), open };
    gates.push(gate);
    (gate as Gate & { run: (signal: AbortSignal) => Promise<void> }).run = async (signal) => {
      enter(signal);
      await new Promise<void>((resolve, reject) => {
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        void opened.then(resolve);
      });
    };
    return gate;
  };
  env.host.registerTool({
    name: 'gated',
    description: 'waits for the test',
    inputSchema: { type: 'object' },
    longRunning: true,
    handler: async (_args, context) => {
      const gate = gates.shift() as Gate & { run: (signal: AbortSignal) => Promise<void> };
      await gate.run(context.signal);
      return { value: 'opened' };
    },
  });
  const front = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp', ...(now === undefined ? {} : { now }) });
  t.after(() => front.close());
  const open = async (): Promise<Session> => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    const seen: Task[] = [];
    const waiting: { taskId: string; status: Task['status']; resolve: (task: Task) => void }[] = [];
    client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
      const task = notification.params as Task;
      seen.push(task);
      for (const waiter of waiting.filter((entry) => entry.taskId === task.taskId && entry.status === task.status)) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve(task);
      }
    });
    // Task status goes out on the session's own (GET) stream: wait until it is open, so no notification is missed.
    let streamOpen!: () => void;
    const opened = new Promise<void>((resolve) => (streamOpen = resolve));
    const transport = new StreamableHTTPClientTransport(new URL(front.url), {
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        if (init?.method === 'GET' && response.ok) streamOpen();
        return response;
      },
    });
    await client.connect(transport);
    await opened;
    t.after(() => client.close());
    return {
      client,
      conversation: transport.sessionId as string,
      status: (taskId, status) =>
        new Promise((resolve) => {
          const already = seen.find((task) => task.taskId === taskId && task.status === status);
          if (already !== undefined) resolve(already);
          else waiting.push({ taskId, status, resolve });
        }),
    };
  };
  return { env, open, nextGate };
}

const startTask = (client: Client, name: string, args: Record<string, unknown>, ttl?: number) =>
  client.request({ method: 'tools/call', params: { name, arguments: args } }, CreateTaskResultSchema, { task: ttl === undefined ? {} : { ttl } });

async function refused(promise: Promise<unknown>): Promise<McpError & { data: { code: string } }> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof McpError, `an McpError, got ${String(error)}`);
    return error as McpError & { data: { code: string } };
  }
  assert.fail('expected the request to be refused');
}

const spillPath = (result: CallToolResult) => (result._meta?.['spillway/spill'] as { path: string }).path;

test('tools/list: long-running tools declare execution.taskSupport "optional", the others nothing; the server declares tasks', async (t) => {
  const { open } = await setUp(t);
  const { client } = await open();
  const { tools } = await client.listTools();
  const support = new Map(tools.map((tool) => [tool.name, tool.execution?.taskSupport]));
  for (const name of ['export_table', 'build_document', 'build_chart', 'query_files', 'query_sql', 'run_script', 'draw_table', 'search_files', 'gated']) {
    assert.equal(support.get(name), 'optional', name);
  }
  for (const name of ['read_file', 'list_files', 'write_file', 'attach_file', 'rows']) assert.equal(support.get(name), undefined, name);
  assert.deepEqual(client.getServerCapabilities()?.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
});

test('a task-augmented export_table returns a task at once; it completes, and tasks/result is what a plain call returns', async (t) => {
  const { open } = await setUp(t);
  const alice = await open();
  // The plain call runs in another conversation, so both write outputs/all.csv from results/0001-rows.jsonl.
  const bob = await open();
  const spilled = (await alice.client.callTool({ name: 'rows', arguments: {} })) as CallToolResult;
  const source = spillPath(spilled);
  await bob.client.callTool({ name: 'rows', arguments: {} });
  const args = { source, format: 'csv', filename: 'all.csv' };
  const bobs = (await bob.client.callTool({ name: 'export_table', arguments: args })) as CallToolResult;
  assert.equal(bobs.isError, false);
  const plain = JSON.parse(JSON.stringify(bobs).replaceAll(bob.conversation, alice.conversation)) as CallToolResult;

  const created = await startTask(alice.client, 'export_table', args);
  assert.equal(created.task.status, 'working');
  assert.equal(created.task.ttl, 3_600_000);
  assert.equal(created.task.pollInterval, 1000);
  const completed = await alice.status(created.task.taskId, 'completed');
  assert.equal(completed.taskId, created.task.taskId);
  assert.equal((await alice.client.experimental.tasks.getTask(created.task.taskId)).status, 'completed');
  const listed = await alice.client.experimental.tasks.listTasks();
  assert.deepEqual(
    listed.tasks.map((task) => task.taskId),
    [created.task.taskId],
  );

  const result = await alice.client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
  const { _meta: meta, ...rest } = result;
  const { _meta: plainMeta, ...plainRest } = plain;
  assert.deepEqual(rest, plainRest);
  const { ['io.modelcontextprotocol/related-task']: related, ...ownMeta } = meta ?? {};
  assert.deepEqual(related, { taskId: created.task.taskId });
  assert.deepEqual(ownMeta, plainMeta ?? {});

  // Fetched: the result is handed over once, then forgotten.
  const gone = await refused(alice.client.experimental.tasks.getTask(created.task.taskId));
  assert.equal(gone.data.code, 'TASK_NOT_FOUND');
});

test('tasks/get shows a gated task working, then completed; a plain call of the same tool is unchanged', async (t) => {
  const { open, nextGate } = await setUp(t);
  const { client, status } = await open();
  const gate = nextGate();
  const created = await startTask(client, 'gated', {});
  await gate.entered;
  assert.equal((await client.experimental.tasks.getTask(created.task.taskId)).status, 'working');
  gate.open();
  await status(created.task.taskId, 'completed');
  assert.equal((await client.experimental.tasks.getTask(created.task.taskId)).status, 'completed');
  const result = await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
  assert.equal(result.isError, false);
  assert.match((result.content[0] as { text: string }).text, /opened/);

  const plainGate = nextGate();
  const plain = client.callTool({ name: 'gated', arguments: {} });
  await plainGate.entered;
  plainGate.open();
  const plainResult = (await plain) as CallToolResult;
  assert.deepEqual(plainResult.content, result.content);
  assert.equal(plainResult._meta?.['io.modelcontextprotocol/related-task'], undefined);
});

test('tasks/cancel aborts the call: the tool sees its signal abort, the task is cancelled and has no result', async (t) => {
  const { open, nextGate } = await setUp(t);
  const { client, status } = await open();
  const gate = nextGate();
  const created = await startTask(client, 'gated', {});
  const signal = await gate.entered;
  const aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  const cancelled = await client.experimental.tasks.cancelTask(created.task.taskId);
  assert.equal(cancelled.status, 'cancelled');
  await aborted;
  assert.equal(signal.aborted, true);
  await status(created.task.taskId, 'cancelled');
  assert.equal((await client.experimental.tasks.getTask(created.task.taskId)).status, 'cancelled');
  const again = await refused(client.experimental.tasks.cancelTask(created.task.taskId));
  assert.equal(again.data.code, 'TASK_FINISHED');
  const noResult = await refused(client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema));
  assert.equal(noResult.data.code, 'TASK_CANCELLED');
});

test("another session cannot see, fetch or cancel a session's task: the same not-found as an id never made", async (t) => {
  const { open, nextGate } = await setUp(t);
  const alice = await open();
  const bob = await open();
  const gate = nextGate();
  const created = await startTask(alice.client, 'gated', {});
  await gate.entered;
  const id = created.task.taskId;
  const never = await refused(bob.client.experimental.tasks.getTask('00000000-0000-4000-8000-000000000000'));
  for (const attempt of [
    bob.client.experimental.tasks.getTask(id),
    bob.client.experimental.tasks.cancelTask(id),
    bob.client.experimental.tasks.getTaskResult(id, CallToolResultSchema),
  ]) {
    const error = await refused(attempt);
    assert.equal(error.code, never.code);
    assert.equal(error.data.code, 'TASK_NOT_FOUND');
    assert.equal(error.message, never.message.replace('00000000-0000-4000-8000-000000000000', id));
  }
  assert.deepEqual((await bob.client.experimental.tasks.listTasks()).tasks, []);
  assert.equal((await alice.client.experimental.tasks.getTask(id)).status, 'working');
  gate.open();
  await alice.status(id, 'completed');
});

test('tasks.maxPerSession refuses the next task with TASK_LIMIT; fetching one frees its place; a tool without task support is refused', async (t) => {
  const { open, nextGate } = await setUp(t, { tasks: { maxPerSession: 2 } });
  const { client, status } = await open();
  const gates = [nextGate(), nextGate()];
  const first = await startTask(client, 'gated', {});
  await startTask(client, 'gated', {});
  const over = await refused(startTask(client, 'gated', {}));
  assert.equal(over.data.code, 'TASK_LIMIT');
  assert.match(over.message, /tasks\.maxPerSession is 2/);
  gates[0]?.open();
  await status(first.task.taskId, 'completed');
  // Finished but not fetched still holds its place; fetched, it does not.
  assert.equal((await refused(startTask(client, 'gated', {}))).data.code, 'TASK_LIMIT');
  await client.experimental.tasks.getTaskResult(first.task.taskId, CallToolResultSchema);
  const third = nextGate();
  await startTask(client, 'gated', {});
  await third.entered;

  const unsupported = await refused(startTask(client, 'rows', {}));
  assert.equal(unsupported.code, -32601);
  assert.equal(unsupported.data.code, 'TASK_NOT_SUPPORTED');
  const unknown = await refused(startTask(client, 'no_such_tool', {}));
  assert.equal(unknown.code, -32602);
  assert.equal(unknown.data.code, 'TOOL_NOT_FOUND');
  gates[1]?.open();
  third.open();
});

test('a task is forgotten when its ttl ends (injected clock): a working one is cancelled, a finished one loses its result', async (t) => {
  let clock = Date.parse('2026-12-01T12:00:00.000Z');
  const { open, nextGate } = await setUp(t, { tasks: { maxTtlMs: 10_000 } }, () => clock);
  const { client, status } = await open();
  const gate = nextGate();
  const working = await startTask(client, 'gated', {}, 5000);
  assert.equal(working.task.ttl, 5000);
  const signal = await gate.entered;
  const finishedGate = nextGate();
  // Asked for more than tasks.maxTtlMs: cut to it.
  const finished = await startTask(client, 'gated', {}, 60_000);
  assert.equal(finished.task.ttl, 10_000);
  await finishedGate.entered;
  finishedGate.open();
  await status(finished.task.taskId, 'completed');

  clock += 5001;
  assert.equal((await refused(client.experimental.tasks.getTask(working.task.taskId))).data.code, 'TASK_NOT_FOUND');
  assert.equal(signal.aborted, true, "the working call's signal aborted at the end of its ttl");
  assert.equal((await client.experimental.tasks.getTask(finished.task.taskId)).status, 'completed');
  clock += 5000;
  const expired = await refused(client.experimental.tasks.getTaskResult(finished.task.taskId, CallToolResultSchema));
  assert.equal(expired.data.code, 'TASK_NOT_FOUND');
});

test('tasks/result waits for a working task (no polling) and answers when it finishes; closing the session cancels its tasks', async (t) => {
  const { open, nextGate } = await setUp(t);
  const { client } = await open();
  const gate = nextGate();
  const created = await startTask(client, 'gated', {});
  await gate.entered;
  const waiting = client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
  gate.open();
  const result = await waiting;
  assert.equal(result.isError, false);

  const left = nextGate();
  await startTask(client, 'gated', {});
  const signal = await left.entered;
  const aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  await (client.transport as StreamableHTTPClientTransport).terminateSession();
  await aborted;
  assert.equal(signal.aborted, true);
});

test("tasks.maxPerPrincipal counts a principal's tasks over all its sessions", async (t) => {
  const { open, nextGate } = await setUp(t, { tasks: { maxPerPrincipal: 2 } });
  const alice = await open();
  const again = await open();
  const gates = [nextGate(), nextGate()];
  await startTask(alice.client, 'gated', {});
  await startTask(again.client, 'gated', {});
  const over = await refused(startTask(again.client, 'gated', {}));
  assert.equal(over.data.code, 'TASK_LIMIT');
  assert.match(over.message, /tasks\.maxPerPrincipal is 2/);
  for (const gate of gates) gate.open();
});

test('a long tool that fails as a task: status failed with its message, tasks/result is the error result a plain call returns', async (t) => {
  const { env, open } = await setUp(t);
  env.host.registerTool({
    name: 'slow_broken',
    description: 'fails after a while',
    inputSchema: { type: 'object' },
    longRunning: true,
    handler: () => Promise.reject(new Error('the printer is on fire')),
  });
  const { client, status } = await open();
  const plain = (await client.callTool({ name: 'slow_broken', arguments: {} })) as CallToolResult;
  assert.equal(plain.isError, true);
  const created = await startTask(client, 'slow_broken', {});
  const failed = await status(created.task.taskId, 'failed');
  // Its statusMessage is the first line of the error text the model reads.
  assert.equal(failed.statusMessage, (plain.content[0] as { text: string }).text.split('\n')[0]);
  assert.match(failed.statusMessage ?? '', /the printer is on fire/);
  const result = await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
  assert.equal(result.isError, true);
  assert.equal((result._meta?.['spillway/error'] as { code: string }).code, 'TOOL_FAILED');
  assert.match((result.content[0] as { text: string }).text, /the printer is on fire/);
});

test("the SDK's own callToolStream runs export_table as a task: created, polled, result", async (t) => {
  const { open } = await setUp(t, { tasks: { pollIntervalMs: 100 } });
  const { client } = await open();
  const source = spillPath((await client.callTool({ name: 'rows', arguments: {} })) as CallToolResult);
  const kinds: string[] = [];
  let result: CallToolResult | undefined;
  const stream = client.experimental.tasks.callToolStream({ name: 'export_table', arguments: { source, format: 'csv' } }, CallToolResultSchema, {
    task: { ttl: 60_000 },
  });
  for await (const message of stream) {
    kinds.push(message.type);
    if (message.type === 'result') result = message.result as CallToolResult;
    if (message.type === 'error') assert.fail(message.error.message);
  }
  assert.equal(kinds[0], 'taskCreated');
  assert.equal(kinds.at(-1), 'result');
  assert.equal(result?.isError, false);
  assert.ok(result?.content.some((block) => block.type === 'resource_link'));
});

test('progress of a task call reaches the client under its progressToken', async (t) => {
  const { env, open } = await setUp(t);
  env.host.registerTool({
    name: 'stepping',
    description: 'reports progress',
    inputSchema: { type: 'object' },
    longRunning: true,
    handler: (_args, context) => {
      context.progress({ progress: 1, total: 2, message: 'half' });
      return { value: 'done' };
    },
  });
  const { client, status } = await open();
  const updates: number[] = [];
  const created = await client.request({ method: 'tools/call', params: { name: 'stepping', arguments: {} } }, CreateTaskResultSchema, {
    task: {},
    onprogress: (progress) => updates.push(progress.progress),
  });
  await status(created.task.taskId, 'completed');
  await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
  assert.ok(updates.includes(1), `progress seen: ${JSON.stringify(updates)}`);
});
