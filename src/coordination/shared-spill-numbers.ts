import path from 'node:path';
import { SpillwayError } from '../errors.js';
import type { Coordinator } from './coordinator.js';

/**
 * Spill numbers from the coordination store: one counter per conversation
 * folder, keyed by its path relative to the sandbox root
 * (`spill-number:<principal>/<conversation>`, so two principals' conversations
 * of the same name never share a counter), continuing from the highest number
 * already on disk (so a sandbox moved by `spillway migrate-sandbox` never
 * reuses a number).
 */
export function sharedSpillNumbers(
  coordinator: Coordinator,
  sandboxRoot: string,
): { next(conversationDir: string, atLeast: number): Promise<number>; assertAvailable(): void } {
  return {
    next: (conversationDir, atLeast) => coordinator.increment(spillNumberKey(sandboxRoot, conversationDir), atLeast),
    assertAvailable() {
      if (coordinator.connected()) return;
      throw new SpillwayError(
        'COORDINATION_UNAVAILABLE',
        `The coordination store (${coordinator.store}) is not connected, so this call's result could not be numbered; nothing was run. Try the call again in a moment.`,
        { store: coordinator.store, retryable: true },
      );
    },
  };
}

/** "spill-number:<conversation folder relative to the root, / separated>". */
export function spillNumberKey(sandboxRoot: string, conversationDir: string): string {
  const relative = path.relative(sandboxRoot, conversationDir).split(path.sep).join('/');
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new SpillwayError('INTERNAL', `The conversation folder ${conversationDir} is not inside the sandbox root ${sandboxRoot}.`, {
      sandboxRoot,
      conversationDir,
    });
  }
  return `spill-number:${relative}`;
}
