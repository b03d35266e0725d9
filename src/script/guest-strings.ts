import { isUtf8 } from 'node:buffer';
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';

/**
 * The parts of quickjs-emscripten 0.32's context this module reaches into.
 * `context.newString` encodes the string to UTF-8 with a JavaScript loop
 * (~2× slower than copying bytes we already have); these internals let a UTF-8
 * buffer go straight into the WebAssembly heap. Checked at run time, with the
 * public API as the fallback, so a library update degrades speed, not behaviour.
 */
interface ContextInternals {
  module?: { _malloc?(bytes: number): number; _free?(pointer: number): void; HEAPU8?: Uint8Array };
  ffi?: { QTS_NewString?(context: number, pointer: number): number };
  ctx?: { value?: number };
  memory?: { heapValueHandle?(pointer: number): QuickJSHandle };
}

/**
 * A guest string from UTF-8 bytes. The bytes must not contain NUL (QuickJS
 * reads a C string); invalid UTF-8 is replaced (U+FFFD) the way Node decodes it.
 */
export function newGuestString(context: QuickJSContext, bytes: Uint8Array): QuickJSHandle {
  const valid = isUtf8(bytes) ? bytes : Buffer.from(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'), 'utf8');
  const internals = context as unknown as ContextInternals;
  const module = internals.module;
  const newString = internals.ffi?.QTS_NewString;
  const contextPointer = internals.ctx?.value;
  const heapValueHandle = internals.memory?.heapValueHandle;
  if (module?._malloc === undefined || module._free === undefined || newString === undefined || contextPointer === undefined || heapValueHandle === undefined) {
    return context.newString(Buffer.from(valid.buffer, valid.byteOffset, valid.byteLength).toString('utf8'));
  }
  const pointer = module._malloc(valid.byteLength + 1);
  if (pointer === 0) return context.newString(Buffer.from(valid.buffer, valid.byteOffset, valid.byteLength).toString('utf8'));
  try {
    // HEAPU8 is re-read after malloc: a heap growth replaces the view.
    const heap = module.HEAPU8 as Uint8Array;
    heap.set(valid, pointer);
    heap[pointer + valid.byteLength] = 0;
    const value = newString.call(internals.ffi, contextPointer, pointer);
    return heapValueHandle.call(internals.memory, value);
  } finally {
    module._free(pointer);
  }
}

/** True when the bytes hold a NUL byte, which a C string cannot carry. */
export function hasNul(bytes: Uint8Array): boolean {
  return bytes.indexOf(0) !== -1;
}
