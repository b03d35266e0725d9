import { SpillwayError } from '../../errors.js';
import type { ArgumentSource } from '../../host/tool.js';
import type { ConversationSandbox } from '../../sandbox/index.js';
import { formatBytes } from '../../util/format.js';
import { isJsonObject } from '../../util/is-json-object.js';
import { mergeOverrides, setMember } from './deep-merge.js';
import { asFileReference, FileReferenceResolver } from './file-references.js';
import { formatJsonPointer } from './json-pointer.js';

/** The source label for values the model wrote itself in `overrides`. */
export const overridesSource = 'overrides';

export interface ExpandInput {
  sandbox: ConversationSandbox;
  /** The args file's object and its path. */
  base: Record<string, unknown>;
  argsPath: string;
  overrides: Record<string, unknown> | undefined;
  /** args.maxBytes: the cap on whole referenced files and on the expanded result. */
  maxBytes: number;
}

export interface Expanded {
  value: Record<string, unknown>;
  /** Where each part came from: the args file (""), a reference, or the model's overrides. */
  sources: ArgumentSource[];
}

/**
 * The arguments a delegating call will really send: the args file with the
 * overrides laid on top and every `{"$file"}` reference replaced by its value,
 * capped at `maxBytes`. Sources are collected on the way for the approval prompt.
 */
export async function expandArguments(input: ExpandInput): Promise<Expanded> {
  const sources: ArgumentSource[] = [{ pointer: '', from: input.argsPath }];
  if (input.overrides === undefined) {
    assertExpandedSize(input.base, input.maxBytes, sources);
    return { value: input.base, sources };
  }
  if (Object.hasOwn(input.overrides, '$file') || Object.hasOwn(input.overrides, '$pointer')) {
    throw new SpillwayError(
      'FILE_REF_INVALID',
      'overrides itself cannot be a file reference. Name that file as argsPath, or put the reference under an argument name: {"body": {"$file": "…"}}.',
      { at: '' },
    );
  }
  const resolver = new FileReferenceResolver(input.sandbox, input.maxBytes);
  const expand = async (value: unknown, where: readonly string[]): Promise<unknown> => {
    const reference = asFileReference(value, where);
    if (reference !== undefined) {
      const resolved = await resolver.resolve(reference, where);
      sources.push({ pointer: formatJsonPointer(where), from: reference.pointer === undefined ? reference.file : `${reference.file}#${reference.pointer}` });
      return resolved;
    }
    if (Array.isArray(value)) {
      const items: unknown[] = [];
      for (const [index, item] of value.entries()) items.push(await expand(item, [...where, String(index)]));
      return items;
    }
    if (isJsonObject(value)) {
      const object: Record<string, unknown> = {};
      for (const [key, member] of Object.entries(value)) setMember(object, key, await expand(member, [...where, key]));
      return object;
    }
    return value;
  };
  const value = await mergeOverrides(input.base, input.overrides, {
    isLeaf: (candidate) => isJsonObject(candidate) && (Object.hasOwn(candidate, '$file') || Object.hasOwn(candidate, '$pointer')),
    place: (candidate, where) => {
      if (asFileReference(candidate, where) === undefined) sources.push({ pointer: formatJsonPointer(where), from: overridesSource });
      return expand(candidate, where);
    },
  });
  assertExpandedSize(value, input.maxBytes, sources);
  return { value, sources };
}

function assertExpandedSize(expanded: Record<string, unknown>, maxBytes: number, sources: readonly ArgumentSource[]): void {
  const bytes = Buffer.byteLength(JSON.stringify(expanded));
  if (bytes <= maxBytes) return;
  const largest = Object.entries(expanded)
    .map(([key, member]) => ({ key, bytes: Buffer.byteLength(JSON.stringify(member) ?? '') }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 5)
    .map((part) => {
      const pointer = formatJsonPointer([part.key]);
      // The most specific source that covers this member or lies inside it.
      const from = [...sources]
        .reverse()
        .find((source) => pointer === source.pointer || pointer.startsWith(`${source.pointer}/`) || source.pointer.startsWith(`${pointer}/`))?.from;
      return `${part.key}: ${formatBytes(part.bytes)}${from === undefined ? '' : ` (from ${from})`}`;
    });
  throw new SpillwayError(
    'RESULT_TOO_LARGE',
    `The expanded arguments are ${formatBytes(bytes)}; at most ${formatBytes(maxBytes)} (args.maxBytes) may be sent. Largest: ${largest.join('; ')}. Send less: pick single values with "$pointer", or have run_script write only what the target needs.`,
    { bytes, maxBytes, largest },
  );
}
