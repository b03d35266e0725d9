import { isJsonObject } from '../../util/is-json-object.js';

export interface MergeOptions {
  /** Turns one override leaf into the value to place (resolves file references). `pointer` is where it lands. */
  place(value: unknown, pointer: readonly string[]): Promise<unknown>;
  /** True for override values that are leaves even though they are objects (file references). */
  isLeaf(value: unknown): boolean;
}

/**
 * Lays `top` over `base`: objects merge key by key; arrays, scalars, null and
 * leaves from `top` replace what was there (arrays are not concatenated); the
 * model's values win. Neither input is modified. Both inputs come from
 * parseJsonSafely, so no key can reach a prototype.
 */
export async function mergeOverrides(
  base: Record<string, unknown>,
  top: Record<string, unknown>,
  options: MergeOptions,
  pointer: readonly string[] = [],
): Promise<Record<string, unknown>> {
  const result: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(top)) {
    const here = [...pointer, key];
    const existing = Object.hasOwn(base, key) ? base[key] : undefined;
    if (isJsonObject(value) && !options.isLeaf(value) && isJsonObject(existing)) {
      setMember(result, key, await mergeOverrides(existing, value, options, here));
    } else {
      setMember(result, key, await options.place(value, here));
    }
  }
  return result;
}

/** Defines an own member, so even a "__proto__" key stays a plain member and never changes a prototype. */
export function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
