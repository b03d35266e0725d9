import { access } from 'node:fs/promises';

/**
 * Waits until `condition` holds, checking again after each short pause. For states with no
 * event to listen to (a file another thread writes). The only bound is a generous one that
 * turns a hang into a failure naming `what`; nothing here measures or asserts on time.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  checks = 6_000,
  /** What to add to the failure: the state that kept the condition false. */
  explain?: () => string,
): Promise<void> {
  for (let check = 0; check < checks; check += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`gave up waiting for ${what}${explain === undefined ? '' : ` (${explain()})`}`);
}

/** Waits until the file exists. */
export function waitForFile(file: string): Promise<void> {
  return waitFor(
    () =>
      access(file).then(
        () => true,
        () => false,
      ),
    `the file ${file}`,
  );
}
