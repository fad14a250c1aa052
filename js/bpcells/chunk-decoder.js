// Decodes a run of BP-128 chunks into a target (slice-output.js) by plain C calls
// (numdecode_bpcells_decode_to, no embind). The run's packed words are either in wasm memory
// already (matrix.js keeps the last range read there: a local file is read straight into it, fetched
// bytes are copied in once) and decoded where they lie, or, for ranges too large to keep, written
// block by block into a bounded wasm buffer. Views receive the values at their place in wasm memory,
// one call per block; JS arrays (fresh or `into`) receive them through a 1 MiB wasm buffer copied
// out after each call. Measured on the 3.8M-entry corpus matrix: each call costs ~1-2 µs besides its
// work, and 64-256 KiB pieces (copied out while in cache) ran 0.6-1.2 ms slower per whole read than
// 1 MiB ones: the copy out is no faster from cache, the extra calls cost.
import { asFormatError, binding } from '../wasm/call.js';
import { wasmInput } from '../wasm/inputs.js';
import { getModule } from '../wasm/load.js';
import { BpcellsError, CODES } from '../errors.js';

/** Values per BP-128 chunk. */
export const CHUNK = 128;
/** numdecode_bpcells_decode_to's variant codes (which delta coding a stream uses). */
export const VARIANT = { plain: 0, m1: 1, d1: 2, d1z: 3 };
const BLOCK_WORDS = 1 << 20; // packed words per copied block: 4 MiB of wasm memory at most
const BLOCK_CHUNKS = 8192; // chunks per block: their offsets and starts are copied in too
const PIECE_CHUNKS = 2048; // JS targets: values per call (1 MiB)
const utf8 = new TextEncoder();

/** A wasmInput of `bytes`, or a BpcellsError (ERR_OUTPUT_LIMIT) naming what it was for. */
export function inputBuffer(bytes, what) {
  try {
    return wasmInput('bpcells', bytes);
  } catch (err) {
    throw new BpcellsError(`${what}: out of wasm memory for a ${bytes}-byte decode buffer`, { code: CODES.OUTPUT_LIMIT, cause: err });
  }
}

// The first chunk after cb that does not fit a copied block starting at cb (at least cb + 1).
function blockEnd(abs, cb, nchunks, copied) {
  let hi = Math.min(nchunks, cb + BLOCK_CHUNKS);
  if (!copied || abs[hi] - abs[cb] <= BLOCK_WORDS) return hi;
  let lo = cb + 1; // one chunk always fits (at most 128 words)
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (abs[mid] - abs[cb] <= BLOCK_WORDS) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * run (null for no values): {variant, name (the stream as errors call it: 'index', '/mat/val'), firstChunk, abs (Uint32Array or Float64Array of
 * nchunks+1 absolute word offsets), starts (Uint8Array, 4 bytes per chunk, d1/d1z), skip (values
 * before the first wanted one), count}. words: the packed words [abs[0], abs[nchunks]) as {ptr}
 * (in wasm memory), {bytes: Uint8Array} or {read(a, b, target)} (reads words [a, b) synchronously
 * into the Uint8Array target). limit > 0 bounds every value. Decodes values [skip, skip + count)
 * into target: {array} (a Uint32Array, from its start) or {ptr} (wasm memory).
 */
export function decodeRun(run, words, target, limit) {
  if (run === null) return; // an empty range: nothing fetched
  const { variant, abs, starts, skip, count, firstChunk } = run;
  if (count === 0) return;
  const mod = getModule('bpcells');
  const decodeTo = binding('bpcells', '_numdecode_bpcells_decode_to'); // a clear error if dist/ is older
  const nchunks = abs.length - 1;
  const w0 = abs[0];
  const out = target.array;
  const copied = words.ptr === undefined;
  const blockChunks = Math.min(BLOCK_CHUNKS, nchunks);
  const dataBytes = copied ? 4 * Math.min(abs[nchunks] - w0, BLOCK_WORDS) : 0;
  const idxBytes = 4 * (blockChunks + 1);
  const startsBytes = starts.length ? 4 * blockChunks : 0;
  const outBytes = out ? 4 * Math.min(count, PIECE_CHUNKS * CHUNK) : 0;
  const name = utf8.encode(run.name); // what the module's errors call the stream (err.file: its file)
  const buffer = inputBuffer(dataBytes + idxBytes + startsBytes + outBytes + name.length, run.name);
  const base = buffer.bytes.byteOffset;
  const idxPtr = base + dataBytes; // dataBytes is whole words: 4-byte aligned
  const startsPtr = idxPtr + idxBytes;
  const outPtr = startsPtr + startsBytes;
  const namePtr = outPtr + outBytes;
  mod.HEAPU8.set(name, namePtr);
  const call = (...args) => {
    try {
      decodeTo(...args);
    } catch (err) {
      throw asFormatError(err, BpcellsError);
    }
  };
  try {
    for (let cb = 0; cb < nchunks; ) {
      const ce = blockEnd(abs, cb, nchunks, copied);
      const lo = Math.max(skip, cb * CHUNK);
      const hi = Math.min(skip + count, ce * CHUNK);
      const wa = abs[cb];
      const wb = abs[ce];
      let dataPtr = base;
      if (!copied) dataPtr = words.ptr + 4 * (wa - w0);
      else if (words.bytes) mod.HEAPU8.set(words.bytes.subarray(4 * (wa - w0), 4 * (wb - w0)), base);
      else words.read(wa - w0, wb - w0, mod.HEAPU8.subarray(base, base + 4 * (wb - wa)));
      // Re-read the heap after every call: the module may have grown its memory.
      const heap32 = mod.HEAPU32;
      const at = idxPtr >>> 2;
      for (let k = cb; k <= ce; k++) heap32[at + k - cb] = abs[k] - wa;
      if (startsBytes) mod.HEAPU8.set(starts.subarray(4 * cb, 4 * ce), startsPtr);
      const dataLen = 4 * (wb - wa);
      if (!out) {
        call(variant, dataPtr, dataLen, idxPtr, ce - cb, startsPtr, firstChunk + cb, lo - cb * CHUNK, hi - lo, limit, namePtr, name.length, target.ptr + 4 * (lo - skip));
        cb = ce;
        continue;
      }
      // Pieces end on chunk boundaries, so no chunk is unpacked twice.
      for (let v = lo; v < hi; ) {
        const pc = Math.floor(v / CHUNK);
        const ve = Math.min(hi, (pc + PIECE_CHUNKS) * CHUNK);
        const k = pc - cb;
        call(variant, dataPtr, dataLen, idxPtr + 4 * k, Math.ceil(ve / CHUNK) - pc, startsPtr + (startsBytes ? 4 * k : 0), firstChunk + pc, v - pc * CHUNK, ve - v, limit, namePtr, name.length, outPtr);
        out.set(new Uint32Array(mod.HEAPU8.buffer, outPtr, ve - v), v - skip);
        v = ve;
      }
      cb = ce;
    }
  } finally {
    buffer.release();
  }
}
