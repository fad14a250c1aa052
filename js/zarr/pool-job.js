// The worker's side of a Zarr read in a worker pool (job format 'zarr', see js/worker/worker.js):
// decodes a batch of pcodec chunks and places each one's box straight into the shared output, or,
// without a SharedArrayBuffer, sends the packed boxes back (moved, not copied) for the caller to place.
// The chunks come in the message, or, from a local folder, the worker reads them itself: reading
// small files costs as much CPU as decoding them, and that way it is spread over the workers too.
// Given whole slabs (batch.slab), it assembles them in wasm memory and copies each out once.
import { CODES, NumdecodeError } from '../errors.js';
import { ensureFormat } from '../wasm/load.js';
import { decodeBox, releaseBoxScratch } from './chunk-decode.js';
import { LocalStore } from './local-store.js';
import { outputGeometry, placeBox } from './place.js';
import { slabAssembler } from './slab.js';

const stores = new Map(); // root -> LocalStore

// A shard's chunk, where the shard's index (read by the caller) says it lies.
function shardChunk(store, shard, offset, length) {
  const bytes = store.readRangeView(shard, offset, length);
  if (bytes === undefined || bytes.length < length) {
    throw new NumdecodeError(`bytes ${offset}-${offset + length - 1} that its shard index names are not in the shard ${shard}`, { code: CODES.BAD_DATA });
  }
  return bytes;
}

/**
 * @param {Uint8Array | null} input the batch's chunks back to back (null: read them from batch.root:
 *   each chunk's file, or with batch.shards the range of its shard that meta gives; null: not stored)
 * @param {Float64Array} meta per chunk: offset, length, box (boxLength values), output base, counts,
 *   and with batch.slab its slab's output base, the chunk's offset there and the slab's counts
 * @param {{dtype: string, width: number, boxLength: number, shape: number[], keys: string[], dataset: string,
 *   root?: string, shards?: string[] | null, output: {buffer: SharedArrayBuffer, byteOffset: number, byteLength: number} | null,
 *   slab?: {axes: number[], rank: number, fill: any, type: string} | null}} batch slab: the batch holds whole
 *   slabs (js/zarr/slab.js) of an output of class `type`; missing chunks are then filled here
 * @returns {Promise<{boxes: Uint8Array[] | null, missing: number[], sizes: number[]}>} boxes: the packed
 *   boxes when there is no shared output; missing: the chunks not stored (read here); sizes: bytes read
 */
export async function decodeBoxes(input, meta, batch) {
  await ensureFormat('pco');
  const { dtype, width, boxLength, shape, keys, dataset, output, root, shards, slab } = batch;
  const geometry = outputGeometry(shape);
  const out = output ? new Uint8Array(output.buffer, output.byteOffset, output.byteLength) : null;
  const slabs = slab ? slabAssembler(slab, geometry, new globalThis[slab.type](output.buffer, output.byteOffset, output.byteLength / width), dtype, slab.fill) : null;
  const stride = 2 + boxLength + 1 + shape.length + (slab ? 2 + shape.length : 0);
  const store = root === undefined ? null : stores.get(root) ?? stores.set(root, new LocalStore(root)).get(root);
  const result = { boxes: out ? null : [], missing: [], sizes: [] };
  try {
    for (let i = 0; i < keys.length; i++) {
      const at = i * stride;
      const base = meta[at + 2 + boxLength];
      const counts = Array.from(meta.subarray(at + 3 + boxLength, at + 3 + boxLength + shape.length));
      // With slabs: the chunk's slab (its output base, the chunk's offset in it, its counts).
      const slabAt = at + 3 + boxLength + shape.length;
      const where = slabs && { base: meta[slabAt], offset: meta[slabAt + 1], counts: Array.from(meta.subarray(slabAt + 2, slabAt + 2 + shape.length)) };
      let bytes;
      try {
        // Lent from one reused buffer: both decodes below copy it into wasm memory at once.
        if (!store) bytes = input.subarray(meta[at], meta[at] + meta[at + 1]);
        else if (!shards) bytes = store.readView(keys[i]);
        else bytes = shards[i] === null ? undefined : shardChunk(store, shards[i], meta[at], meta[at + 1]);
      } catch (err) {
        err.file = keys[i];
        throw err;
      }
      if (bytes === undefined) {
        slabs?.missing(where, counts); // without slabs the caller fills it
        result.missing.push(i);
        continue;
      }
      result.sizes.push(bytes.length);
      const box = Uint32Array.from(meta.subarray(at + 2, at + 2 + boxLength));
      const details = { file: keys[i], array: dataset, dataset };
      let packed;
      try {
        if (slabs) slabs.chunk(where, bytes, box, details);
        else packed = decodeBox(bytes, dtype, box, details);
      } catch (err) {
        err.jobIndex = i;
        throw err;
      }
      if (slabs) continue;
      if (out) {
        placeBox(out, width, geometry, base, counts, packed);
      } else {
        const copy = new Uint8Array(packed.length); // out of wasm memory, to be moved to the caller
        copy.set(packed);
        result.boxes.push(copy);
      }
    }
    slabs?.end();
  } finally {
    slabs?.close();
    releaseBoxScratch();
  }
  return result;
}
