// The worker's side of a Zarr read in a worker pool (job format 'zarr', see js/worker/worker.js):
// decodes a batch of pcodec chunks and places each one's box straight into the shared output, or,
// without a SharedArrayBuffer, sends the packed boxes back (moved, not copied) for the caller to place.
import { ensureFormat } from '../wasm/load.js';
import { decodeBox, releaseBoxScratch } from './chunk-decode.js';
import { outputGeometry, placeBox } from './place.js';

/**
 * @param {Uint8Array} input the batch's chunks back to back
 * @param {Float64Array} meta per chunk: offset, length, box (boxLength values), output base, counts
 * @param {{dtype: string, width: number, boxLength: number, shape: number[], keys: string[], dataset: string,
 *   output: {buffer: SharedArrayBuffer, byteOffset: number, byteLength: number} | null}} batch
 * @returns {Promise<Uint8Array[] | null>} the packed boxes when there is no shared output
 */
export async function decodeBoxes(input, meta, batch) {
  await ensureFormat('pco');
  const { dtype, width, boxLength, shape, keys, dataset, output } = batch;
  const geometry = outputGeometry(shape);
  const out = output ? new Uint8Array(output.buffer, output.byteOffset, output.byteLength) : null;
  const stride = 2 + boxLength + 1 + shape.length;
  const boxes = out ? null : [];
  try {
    for (let i = 0; i < keys.length; i++) {
      const at = i * stride;
      const bytes = input.subarray(meta[at], meta[at] + meta[at + 1]);
      const box = Uint32Array.from(meta.subarray(at + 2, at + 2 + boxLength));
      let packed;
      try {
        packed = decodeBox(bytes, dtype, box, { file: keys[i], dataset });
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
        boxes.push(copy);
      }
    }
  } finally {
    releaseBoxScratch();
  }
  return boxes;
}
