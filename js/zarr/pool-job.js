// The worker's side of a Zarr read in a worker pool (job format 'zarr', see js/worker/worker.js):
// decodes a batch of pcodec chunks and places each one's box straight into the shared output, or,
// without a SharedArrayBuffer, sends the packed boxes back (moved, not copied) for the caller to place.
// The chunks come in the message, or, from a local folder, the worker reads them itself: reading
// small files costs as much CPU as decoding them, and that way it is spread over the workers too.
// Given whole slabs (batch.slab), it assembles them in wasm memory and copies each out once.
import { ensureFormat } from '../wasm/load.js';
import { decodeBox, releaseBoxScratch } from './chunk-decode.js';
import { LocalStore } from './local-store.js';
import { outputGeometry, placeBox } from './place.js';
import { slabAssembler } from './slab.js';

const stores = new Map(); // root -> LocalStore

/**
 * @param {Uint8Array | null} input the batch's chunks back to back (null: read them from batch.root)
 * @param {Float64Array} meta per chunk: offset, length, box (boxLength values), output base, counts
 *   (and with batch.slab, its slab: see decodeSlabs)
 * @param {{dtype: string, width: number, boxLength: number, shape: number[], keys: string[], dataset: string,
 *   root?: string, output: {buffer: SharedArrayBuffer, byteOffset: number, byteLength: number} | null}} batch
 * @returns {Promise<{boxes: Uint8Array[] | null, missing: number[], sizes: number[]}>} boxes: the packed
 *   boxes when there is no shared output; missing: the chunks not stored (read here); sizes: bytes read
 */
export async function decodeBoxes(input, meta, batch) {
  await ensureFormat('pco');
  const { dtype, width, boxLength, shape, keys, dataset, output, root, slab } = batch;
  const geometry = outputGeometry(shape);
  const out = output ? new Uint8Array(output.buffer, output.byteOffset, output.byteLength) : null;
  const stride = 2 + boxLength + 1 + shape.length + (slab ? 2 + shape.length : 0);
  if (slab) return decodeSlabs(meta, batch, geometry, stride);
  const store = root === undefined ? null : stores.get(root) ?? stores.set(root, new LocalStore(root)).get(root);
  const result = { boxes: out ? null : [], missing: [], sizes: [] };
  try {
    for (let i = 0; i < keys.length; i++) {
      const at = i * stride;
      let bytes;
      try {
        bytes = store ? store.readSync(keys[i]) : input.subarray(meta[at], meta[at] + meta[at + 1]);
      } catch (err) {
        err.file = keys[i];
        throw err;
      }
      if (bytes === undefined) {
        result.missing.push(i);
        continue;
      }
      result.sizes.push(bytes.length);
      const box = Uint32Array.from(meta.subarray(at + 2, at + 2 + boxLength));
      let packed;
      try {
        packed = decodeBox(bytes, dtype, box, { file: keys[i], array: dataset, dataset });
      } catch (err) {
        err.jobIndex = i;
        throw err;
      }
      const base = meta[at + 2 + boxLength];
      const counts = Array.from(meta.subarray(at + 3 + boxLength, at + stride));
      if (out) {
        placeBox(out, width, geometry, base, counts, packed);
      } else {
        const copy = new Uint8Array(packed.length); // out of wasm memory, to be moved to the caller
        copy.set(packed);
        result.boxes.push(copy);
      }
    }
  } finally {
    releaseBoxScratch();
  }
  return result;
}

// A batch of whole slabs (batch.slab: the output's axes, the array's rank, the fill value and the
// output's class; per chunk in meta after its counts: its slab's output base, its offset there and
// the slab's counts), from a local folder into the shared output: each chunk placed in its slab in
// wasm memory, each slab copied out once (js/zarr/slab.js). Missing chunks are filled in their slab.
function decodeSlabs(meta, batch, geometry, stride) {
  const { dtype, boxLength, shape, keys, dataset, output, root, slab } = batch;
  const data = new globalThis[slab.type](output.buffer, output.byteOffset, output.byteLength / batch.width);
  const slabs = slabAssembler(slab, geometry, data, dtype, slab.fill);
  const store = stores.get(root) ?? stores.set(root, new LocalStore(root)).get(root);
  const result = { boxes: null, missing: [], sizes: [] };
  try {
    for (let i = 0; i < keys.length; i++) {
      const at = i * stride;
      const counts = Array.from(meta.subarray(at + 3 + boxLength, at + 3 + boxLength + shape.length));
      const slabAt = at + 3 + boxLength + shape.length;
      const where = { base: meta[slabAt], offset: meta[slabAt + 1], counts: Array.from(meta.subarray(slabAt + 2, slabAt + 2 + shape.length)) };
      let bytes;
      try {
        bytes = store.readView(keys[i]);
      } catch (err) {
        err.file = keys[i];
        throw err;
      }
      if (bytes === undefined) {
        slabs.missing(where, counts);
        result.missing.push(i);
        continue;
      }
      result.sizes.push(bytes.length);
      try {
        slabs.chunk(where, bytes, Uint32Array.from(meta.subarray(at + 2, at + 2 + boxLength)), { file: keys[i], array: dataset, dataset });
      } catch (err) {
        err.jobIndex = i;
        throw err;
      }
    }
    slabs.end();
  } finally {
    releaseBoxScratch();
  }
  return result;
}
