// The tests' check that a process has ended (test/helpers/process-ended.ts): a dead process
// not yet reaped and a pid since given to another program both count as ended.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { childExit } from './child-process.js';
import { describeProcess, procEntry, processEnded } from './process-ended.js';
import { waitFor } from './wait-for.js';

const sleeper = ['-e', 'setInterval(() => undefined, 60_000)', 'process-ended-probe'];

test('a running process has not ended; once killed and reaped it has, and /proc says why', async (t) => {
  const child = spawn(process.execPath, sleeper, { stdio: 'ignore' });
  t.after(() => child.kill('SIGKILL'));
  await new Promise((resolve) => child.once('spawn', resolve));
  const pid = child.pid as number;
  assert.equal(processEnded(pid), false);
  assert.equal(processEnded(pid, 'process-ended-probe'), false, 'its command line holds the program');
  assert.match(describeProcess(pid), /^state [RS], .*process-ended-probe/);
  assert.equal(processEnded(pid, 'another-program.js'), true, 'a pid running another program is not the process that was meant');
  const exited = childExit(child);
  child.kill('SIGKILL');
  await exited;
  assert.equal(processEnded(pid), true);
  assert.equal(describeProcess(pid), 'no such process');
});

test('a process that is dead but not yet reaped (a zombie) has ended', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
  // A shell starts a child that waits for a line on the test's pipe, prints the child's pid
  // and execs `sleep`, which never calls wait. The line is sent only once the exec has
  // happened, so the shell cannot reap the child first: its exit leaves a zombie.
  const script = 'exec 3<&0; (read line <&3) & echo $!; exec sleep 60';
  const shell = spawn('sh', ['-c', script], { stdio: ['pipe', 'pipe', 'ignore'] });
  t.after(() => shell.kill('SIGKILL'));
  const pid = await new Promise<number>((resolve) => shell.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
  const shellPid = shell.pid as number;
  await waitFor(
    () => procEntry(shellPid)?.commandLine.startsWith('sleep') === true,
    `the shell ${shellPid} to exec sleep`,
    undefined,
    () => describeProcess(shellPid),
  );
  assert.equal(processEnded(pid), false, 'the child is still waiting for its line');
  shell.stdin.write('exit\n');
  await waitFor(
    () => describeProcess(pid).startsWith('state Z'),
    `the child ${pid} to become a zombie`,
    undefined,
    () => describeProcess(pid),
  );
  let signalled = true;
  try {
    process.kill(pid, 0);
  } catch {
    signalled = false;
  }
  assert.equal(signalled, true, 'kill(pid, 0) still finds a zombie');
  assert.equal(processEnded(pid), true);
});
