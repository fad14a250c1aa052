// Results read out of a module's memory: C strings and byte blocks its exports point to.

/** The NUL-terminated UTF-8 text at ptr in a module's memory (C strings its exports return). */
export function textAt(mod, ptr) {
  const heap = mod.HEAPU8;
  return new TextDecoder().decode(heap.subarray(ptr, heap.indexOf(0, ptr)));
}

/** A fresh copy of size bytes at ptr in a module's memory (new + set: V8's slice() of wasm memory is much slower). */
export function bytesAt(mod, ptr, size) {
  const out = new Uint8Array(size);
  out.set(mod.HEAPU8.subarray(ptr, ptr + size));
  return out;
}
