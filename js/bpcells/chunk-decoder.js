// Decodes a fetched run of BP-128 chunks into a target (slice-output.js) in blocks: each block's
// packed words, offsets and starts are written once into a wasm buffer and decoded by one plain C
// call (numdecode_bpcells_decode_to, no embind). Values land straight at their place in wasm
// memory (views), or in a bounded wasm buffer that is copied to the JS array (fresh arrays,
// `into`). Block sizes were measured on the 3.8M-entry corpus matrix: each call costs ~1-2 µs
// besides its work, and large copies out run faster than many 64 KiB ones.
import { binding, getModule } from '../wasm.js';
import { BpcellsError } from './sources.js';
import { CODES } from '../errors.js';

const CHUNK = 128;
const CHUNK_BYTES_MAX = 4 * 4 * 32; // 32 bits per value
// JS targets: 2048 chunks = 1 MiB of values per copy out. Views: no output buffer, so blocks
// only bound the input buffer (4 MiB of packed words at most).
const BLOCK_CHUNKS = { array: 2048, wasm: 8192 };
const STREAM_CODE = { index: 0, val: 1 };

// Plain Errors from the module become BpcellsError with their code ("bpcells: index: ...").
function decodeError(err) {
  if (err instanceof BpcellsError) return err;
  return new BpcellsError(err?.message ?? String(err), { code: err?.code, cause: err });
}

/**
 * run (null for no values): {variant, name ('index' | 'val'), firstChunk, abs (Float64Array of nchunks+1 absolute
 * word offsets), starts (Uint8Array, 4 bytes per chunk, d1/d1z), data (Uint8Array of the words
 * [abs[0], abs[nchunks])), skip (values before the first wanted one), count}. limit > 0 bounds
 * every value. Decodes values [skip, skip + count) into target.
 */
export function decodeRun(run, target, limit) {
  if (run === null) return; // an empty range: nothing fetched
  const { variant, abs, starts, data, skip, count, firstChunk } = run;
  if (count === 0) return;
  const mod = getModule('bpcells');
  const decodeTo = binding('bpcells', '_numdecode_bpcells_decode_to'); // a clear error if dist/ is older
  const nchunks = abs.length - 1;
  const block = Math.min(target.array ? BLOCK_CHUNKS.array : BLOCK_CHUNKS.wasm, nchunks);
  const dataBytes = Math.min(data.length, block * CHUNK_BYTES_MAX);
  const idxBytes = 4 * (block + 1);
  const startsBytes = starts.length ? 4 * block : 0;
  const outBytes = target.array ? 4 * Math.min(count, block * CHUNK) : 0;
  const total = dataBytes + idxBytes + startsBytes + outBytes;
  const base = mod._malloc(Math.max(total, 1));
  if (base === 0) throw new BpcellsError(`${run.name}: out of wasm memory for a ${total}-byte decode buffer`, { code: CODES.OUTPUT_LIMIT });
  const dataPtr = base;
  const idxPtr = dataPtr + dataBytes; // dataBytes is whole words: 4-byte aligned
  const startsPtr = idxPtr + idxBytes;
  const outPtr = startsPtr + startsBytes;
  const stream = STREAM_CODE[run.name];
  const w0 = abs[0];
  const out = target.array;
  try {
    for (let cb = 0; cb < nchunks; cb += block) {
      const ce = Math.min(nchunks, cb + block);
      const lo = Math.max(skip, cb * CHUNK);
      const hi = Math.min(skip + count, ce * CHUNK);
      if (hi <= lo) continue;
      const wa = abs[cb];
      const wb = abs[ce];
      // Re-read after every call: the module may have grown its memory.
      const heap = mod.HEAPU8;
      heap.set(data.subarray(4 * (wa - w0), 4 * (wb - w0)), dataPtr);
      const heap32 = mod.HEAPU32;
      const at = idxPtr >>> 2;
      for (let k = cb; k <= ce; k++) heap32[at + k - cb] = abs[k] - wa;
      if (startsBytes) heap.set(starts.subarray(4 * cb, 4 * ce), startsPtr);
      const dst = out ? outPtr : target.ptr + 4 * (lo - skip);
      try {
        decodeTo(variant, dataPtr, 4 * (wb - wa), idxPtr, ce - cb, startsPtr, firstChunk + cb, lo - cb * CHUNK, hi - lo, limit, stream, dst);
      } catch (err) {
        throw decodeError(err);
      }
      if (out) out.set(new Uint32Array(mod.HEAPU8.buffer, outPtr, hi - lo), lo - skip);
    }
  } finally {
    mod._free(base);
  }
}
