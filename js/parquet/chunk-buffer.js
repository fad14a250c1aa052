// One buffer in the ALP module's memory that column chunks of a local file (or of bytes in
// memory) are read into, one after another: ALP pages then decode where they lie, with no copy
// per page and no fresh JS array per chunk (fresh memory costs a page fault per 4 KiB touched).
import { wasmInput } from '../wasm/inputs.js';

/**
 * A place(start, end) for chunkPages over `file` (which has readSync): reads the bytes into the
 * buffer (reserve()d ahead, else grown as needed) and returns view(), the bytes as a Uint8Array in wasm memory (call it
 * again after other wasm calls: memory growth detaches the old one). release() frees it.
 */
export function chunkBuffer(file) {
  let input = null;
  const grow = (size) => {
    input?.release();
    input = null; // a failed allocation below leaves nothing to release twice
    input = wasmInput('alp', size);
  };
  const place = (start, end) => {
    const n = end - start;
    if (input === null || input.byteLength < n) grow(Math.max(n, Math.ceil((input?.byteLength ?? 0) * 1.5)));
    const held = input;
    file.readSync(start, end, held.bytes.subarray(0, n));
    return () => held.bytes.subarray(0, n);
  };
  return {
    place,
    /**
     * Makes room for `n` bytes at once: a reader that knows its largest chunk asks for it first, so
     * that the buffer is allocated once (each regrowth leaves the old buffer's pages resident).
     */
    reserve(n) {
      if (n > 0 && (input === null || input.byteLength < n)) grow(n);
    },
    release() {
      input?.release();
      input = null;
    },
  };
}
