import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { launch, type Browser, type CDPSession } from 'puppeteer-core';
import { downloadSettings } from '../../src/downloads/download-settings.js';
import { signDownloadLink } from '../../src/downloads/signed-link.js';
import { aliceToken, downloadFixture, exportBytes } from './helpers.js';

const chromiumPath = process.env.SPILLWAY_TEST_CHROMIUM ?? '/usr/bin/chromium';
const conversation = 'browser-report';
const filename = 'Quartalsbericht März.bin';

/** A headless Chromium with a fresh profile (and TMPDIR and HOME inside it), closed and removed when the test ends. */
async function startBrowser(t: TestContext): Promise<{ browser: Browser; downloads: string }> {
  const root = await mkdtemp(path.join(tmpdir(), 'spillway-browser-'));
  const removeRoot = () => rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  const profile = path.join(root, 'profile');
  const downloads = path.join(root, 'downloads');
  const home = path.join(root, 'home');
  await Promise.all([profile, downloads, home, path.join(root, 'tmp')].map((dir) => mkdir(dir)));
  const browser = await launch({
    executablePath: chromiumPath,
    ignoreDefaultArgs: true,
    pipe: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    // Whatever Chromium writes outside its profile (singleton socket, crash reports) lands in the folder removed after.
    env: { ...process.env, TMPDIR: path.join(root, 'tmp'), HOME: home },
  }).catch(async (error: unknown) => {
    await removeRoot();
    throw error;
  });
  t.after(async () => {
    await browser.close();
    await removeRoot();
  });
  return { browser, downloads };
}

type DownloadEnd = { state: 'completed' | 'canceled'; guid: string; suggestedFilename: string | undefined };

/** Resolves when the next download reaches "completed" or "canceled" (Browser.downloadProgress), with the name Chromium chose for it. */
function nextDownload(session: CDPSession): Promise<DownloadEnd> {
  return new Promise((resolve) => {
    const names = new Map<string, string>();
    const onBegin = (event: { guid: string; suggestedFilename: string }) => names.set(event.guid, event.suggestedFilename);
    const onProgress = (event: { guid: string; state: 'inProgress' | 'completed' | 'canceled' }) => {
      if (event.state === 'inProgress') return;
      session.off('Browser.downloadWillBegin', onBegin);
      session.off('Browser.downloadProgress', onProgress);
      resolve({ state: event.state, guid: event.guid, suggestedFilename: names.get(event.guid) });
    };
    session.on('Browser.downloadWillBegin', onBegin);
    session.on('Browser.downloadProgress', onProgress);
  });
}

test('a headless Chromium saves the file of a signed download link byte-identical; tampered, expired and other-principal links are refused', async (t) => {
  if (!existsSync(chromiumPath)) {
    t.skip(`Chromium is not installed at ${chromiumPath} (apt-get install chromium, or set SPILLWAY_TEST_CHROMIUM)`);
    return;
  }
  // The clock download links are signed by; moved back to make a link that is already expired.
  let signerNowMs: number | undefined;
  const fixture = await downloadFixture(t, { now: () => new Date(signerNowMs ?? Date.now()) });
  const alice = await fixture.client(aliceToken);
  const bytes = randomBytes(300_000);
  const { card } = await exportBytes(fixture, alice, { principal: 'alice', conversationId: conversation, name: filename, bytes });
  const signedUrl = card.downloadUrl ?? '';
  assert.ok(signedUrl.startsWith(`${fixture.base}/files/`), signedUrl);

  const { browser, downloads } = await startBrowser(t);
  const session = await browser.target().createCDPSession();
  await session.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads, eventsEnabled: true });
  const page = await browser.newPage();

  // An attachment aborts the navigation (net::ERR_ABORTED) and becomes a download; its end is the event waited on.
  const downloaded = nextDownload(session);
  const navigation = await page.goto(signedUrl).then(
    () => 'navigated',
    (error: Error) => error.message,
  );
  assert.match(navigation, /ERR_ABORTED/, 'the link is answered as an attachment, not shown as a page');
  const end = await downloaded;
  assert.equal(end.state, 'completed');
  assert.equal(end.suggestedFilename, filename, "Chromium takes the name from Content-Disposition's filename*");
  assert.deepEqual(await readdir(downloads), [filename]);
  assert.deepEqual(await readFile(path.join(downloads, filename)), bytes, 'the saved file is byte-identical to the output');

  // Refusals are JSON answers, shown as pages: the status is the route's.
  const statusOf = async (url: string) => {
    const response = await page.goto(url);
    assert.ok(response !== null, url);
    return { status: response.status(), body: await response.text() };
  };
  const token = new URL(signedUrl).searchParams.get('sig') ?? '';
  const tampered = signedUrl.replace(token, `${token.slice(0, -3)}${token.endsWith('abc') ? 'xyz' : 'abc'}`);
  assert.deepEqual(await statusOf(tampered), { status: 403, body: JSON.stringify({ error: 'This download link is not valid.' }) });

  signerNowMs = Date.now() - 2 * 3600_000;
  const { card: stale } = await exportBytes(fixture, alice, { principal: 'alice', conversationId: conversation, name: 'stale.bin', bytes: randomBytes(64) });
  signerNowMs = undefined;
  assert.ok(Date.parse(stale.downloadExpiresAt ?? '') < Date.now(), 'signed two hours ago with a one-hour lifetime');
  assert.deepEqual(await statusOf(stale.downloadUrl ?? ''), {
    status: 403,
    body: JSON.stringify({ error: 'This download link has expired; ask for a new one.' }),
  });

  // A link validly signed for bob, naming alice's very conversation, path and content: bob's folder holds no such file.
  const key = downloadSettings(fixture.host.config).key;
  assert.ok(key !== undefined);
  const { token: bobs } = await signDownloadLink(
    { principal: 'bob', conversationId: conversation, path: card.path, sha256: createHash('sha256').update(bytes).digest('hex') },
    { key, ttlSeconds: 3600, now: new Date() },
  );
  const bobsUrl = `${signedUrl.slice(0, signedUrl.indexOf('?'))}?sig=${bobs}`;
  assert.deepEqual(await statusOf(bobsUrl), { status: 404, body: JSON.stringify({ error: 'Not found.' }) });
  assert.deepEqual(await readdir(downloads), [filename], 'no refusal was saved as a download');
});
