import { execFileSync } from 'node:child_process';

/** A mount made for a test; `unmount` is safe to call more than once. */
export interface TestMount {
  unmount(): void;
}

function run(args: string[]): void {
  execFileSync(args[0] as string, args.slice(1), { stdio: 'pipe' });
}

function mounted(folder: string): TestMount {
  let done = false;
  return {
    unmount() {
      if (done) return;
      done = true;
      // Lazy: a worker still holding a file there must not keep the test's folder mounted.
      run(['umount', '-l', folder]);
    },
  };
}

/**
 * Mounts a tmpfs of `size` (e.g. "64k") over an existing folder: a real full disk.
 * Returns the reason instead when this machine cannot (not root, no mount in the container).
 */
export function mountSmallDisk(folder: string, size: string): TestMount | string {
  try {
    run(['mount', '-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', folder]);
    return mounted(folder);
  } catch (error) {
    return `cannot mount a tmpfs here (${(error as Error).message.split('\n')[0]})`;
  }
}

/** Bind-mounts a folder read-only over itself: a real read-only file system (EROFS, even for root). */
export function mountReadOnly(folder: string): TestMount | string {
  try {
    run(['mount', '--bind', folder, folder]);
  } catch (error) {
    return `cannot bind-mount here (${(error as Error).message.split('\n')[0]})`;
  }
  try {
    run(['mount', '-o', 'remount,ro,bind', folder]);
    return mounted(folder);
  } catch (error) {
    run(['umount', folder]);
    return `cannot remount read-only here (${(error as Error).message.split('\n')[0]})`;
  }
}
