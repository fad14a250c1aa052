// Compressed input in a module's memory: copied in around one call (withInputs), or written
// there once by the caller and read in place by every later call (wasmInput).
import { CODES, NumdecodeError } from '../errors.js';
import { malloc } from './heap.js';
import { getModule } from './load.js';
import { WasmView } from './views.js';

/**
 * Copies each Uint8Array into the format's wasm heap (unless it lies in a wasmInput() buffer: then it
 * is passed where it is), calls fn(ptr0, len0, ptr1, len1, ...) and frees the copies afterwards,
 * also when fn throws.
 */
export function withInputs(format, arrays, fn) {
  const mod = getModule(format);
  const args = [];
  let inPlace = 0; // bit i: input i is used where it lies (not a copy to free)
  try {
    for (const bytes of arrays) {
      if (bytes.buffer === mod.HEAPU8.buffer && insideWasmInput(mod, bytes)) {
        inPlace |= 1 << (args.length / 2);
        args.push(bytes.byteOffset, bytes.length);
        continue;
      }
      // malloc(0) may return 0; ask for one byte so every input has a real address.
      const ptr = malloc(mod, Math.max(bytes.length, 1));
      if (ptr === 0) {
        throw new NumdecodeError(`numdecode: out of wasm memory copying ${bytes.length} input bytes`, { code: CODES.OUTPUT_LIMIT });
      }
      args.push(ptr, bytes.length);
      // HEAPU8 is re-read after every malloc: growing memory replaces it.
      mod.HEAPU8.set(bytes, ptr);
    }
    return fn(...args);
  } finally {
    for (let i = 0; i < args.length; i += 2) if (!(inPlace & (1 << (i / 2)))) mod._free(args[i]);
  }
}

// Per module, the live wasmInput() allocations: start -> end. Bytes inside one are used where they
// lie; any other view of wasm memory (which may be freed memory a decoder's output could reuse) is copied.
const liveInputs = new WeakMap();

function insideWasmInput(mod, bytes) {
  const live = liveInputs.get(mod);
  if (live === undefined) return false;
  const start = bytes.byteOffset;
  const end = start + bytes.length;
  // Usually the whole buffer: found by its start without a walk over every live buffer.
  const whole = live.get(start);
  if (whole !== undefined && end <= whole) return true;
  for (const [ptr, stop] of live) if (start >= ptr && end <= stop) return true;
  return false;
}

/**
 * `byteLength` bytes in the format's wasm memory for compressed input: fill `input.bytes` once
 * (a file read, a fetched body) and pass it (or a subarray) to that format's decoders, which then
 * read it where it lies instead of copying it in. Rules as for decodeView: re-read `input.bytes`
 * after other numdecode calls (memory growth detaches it); release() frees it.
 */
export function wasmInput(format, byteLength) {
  if (!Number.isSafeInteger(byteLength) || byteLength < 0) {
    throw new RangeError(`numdecode.wasmInput: byteLength must be a non-negative integer, got ${byteLength}`);
  }
  const mod = getModule(format);
  const ptr = malloc(mod, Math.max(byteLength, 1));
  if (ptr === 0) {
    throw new NumdecodeError(`numdecode.wasmInput: out of wasm memory for ${byteLength} input bytes`, { code: CODES.OUTPUT_LIMIT });
  }
  let live = liveInputs.get(mod);
  if (live === undefined) liveInputs.set(mod, (live = new Map()));
  live.set(ptr, ptr + byteLength);
  const free = () => {
    live.delete(ptr);
    mod._free(ptr);
  };
  return new WasmInput(mod, 'numdecode.wasmInput', Uint8Array, ptr, byteLength, free, { format, byteLength });
}

// An input buffer: a view whose values are its bytes.
class WasmInput extends WasmView {
  /** The buffer's bytes (a Uint8Array in wasm memory); re-read after other numdecode calls. */
  get bytes() {
    return this.values;
  }
}
