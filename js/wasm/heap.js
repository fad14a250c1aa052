// Results read out of a module's memory: C strings and byte blocks its exports point to.

/**
 * `bytes` of a module's memory from its malloc: the address, or 0 when there is no room. The
 * modules grow up to 4 GiB, and an export's i32 answer past 2 GiB reads as a negative number in
 * JS: made unsigned here, for the typed arrays and offsets made from it. A size past 4 GiB - 1
 * does not fit malloc's 32-bit argument: 0.
 */
export function malloc(mod, bytes) {
  return bytes > 0xffffffff ? 0 : mod._malloc(bytes) >>> 0;
}

/** The NUL-terminated UTF-8 text at ptr in a module's memory (C strings its exports return). */
export function textAt(mod, ptr) {
  ptr >>>= 0; // (an address past 2 GiB comes from an export as a negative number)
  const heap = mod.HEAPU8;
  return new TextDecoder().decode(heap.subarray(ptr, heap.indexOf(0, ptr)));
}

/** A fresh copy of size bytes at ptr in a module's memory (new + set: V8's slice() of wasm memory is much slower). */
export function bytesAt(mod, ptr, size) {
  ptr >>>= 0;
  const out = new Uint8Array(size);
  out.set(mod.HEAPU8.subarray(ptr, ptr + size));
  return out;
}
