// One buffer in the ALP module's memory that column chunks of a local file (or of bytes in
// memory) are read into, one after another: ALP pages then decode where they lie, with no copy
// per page and no fresh JS array per chunk (fresh memory costs a page fault per 4 KiB touched).
import { wasmInput } from '../wasm/inputs.js';

/**
 * A place(start, end) for chunkPages over `file` (which has readSync): reads the bytes into the
 * buffer (grown as needed) and returns view(), the bytes as a Uint8Array in wasm memory (call it
 * again after other wasm calls: memory growth detaches the old one). release() frees it.
 */
export function chunkBuffer(file) {
  let input = null;
  const place = (start, end) => {
    const n = end - start;
    if (input === null || input.byteLength < n) {
      const size = Math.max(n, Math.ceil((input?.byteLength ?? 0) * 1.5));
      input?.release();
      input = null; // a failed allocation below leaves nothing to release twice
      input = wasmInput('alp', size);
    }
    const held = input;
    file.readSync(start, end, held.bytes.subarray(0, n));
    return () => held.bytes.subarray(0, n);
  };
  return {
    place,
    release() {
      input?.release();
      input = null;
    },
  };
}
