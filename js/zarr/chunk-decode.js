// Decodes one pcodec chunk of a Zarr array in the Pco module and packs the part a selection needs
// (its box) in the module's memory, in C order of the stored axes: js/zarr/place.js then copies
// it to the output in whole rows. The same on the main thread and in a worker.
import { PcoError } from '../errors.js';
import { binding, wasmCaller } from '../wasm/call.js';
import { textAt } from '../wasm/heap.js';
import { getModule } from '../wasm/load.js';

const call = wasmCaller('pco', PcoError);

/** The most axes a chunk's box can have: the module's parameter arrays hold this many
 * (kMaxBoxAxes, src/bindings/pco_bindings.cpp). Writing more would overrun them. */
export const MAX_BOX_AXES = 32;
let dtypeCodes = null; // dtype name -> the standalone format's code, read once from the module

function dtypeCode(mod, dtype) {
  dtypeCodes ??= new Map(JSON.parse(textAt(mod, mod._numdecode_pco_dtype_names())).map((name, code) => [name, code]));
  return dtypeCodes.get(dtype);
}

/**
 * A chunk's box over its stored axes as the module reads it: extent (the chunk's shape), then the
 * first position, step and count per axis. A 0-dimensional array's one value is a box of one axis.
 * @param {number[]} extent @param {number[]} start @param {number[]} step @param {number[]} count
 */
export function boxParams(extent, start, step, count) {
  if (extent.length === 0) return Uint32Array.of(1, 0, 1, 1);
  return Uint32Array.from([...extent, ...start, ...step, ...count]);
}

/**
 * Decodes `bytes` (one standalone Pco file of `dtype` values, exactly as many as the chunk's extent)
 * and packs the box. Returns the packed bytes as a view of wasm memory, valid until the next call
 * into the Pco module. `details` (file, dataset) go onto the error when the chunk is refused.
 * @param {Uint8Array} bytes
 * @param {string} dtype numdecode's dtype name ('f32', 'f16', ...)
 * @param {Uint32Array} box from boxParams
 * @param {{file?: string, dataset?: string}} [details]
 * @returns {Uint8Array}
 */
export function decodeBox(bytes, dtype, box, details) {
  const mod = getModule('pco');
  const at = callDecodeBox(binding('pco', '_numdecode_pco_decode_box'), bytes, dtype, box, details, null) >>> 2;
  const heap = mod.HEAPU32;
  return mod.HEAPU8.subarray(heap[at], heap[at] + heap[at + 1]);
}

// Calls one of the module's box decoders on `bytes`, with the box written to the module's
// parameter array: decode(ptr, len, dtype code, axes), or, with a target (decodeBoxToTarget),
// decode(..., target address, target bytes) with where the box goes in it (offset, strides)
// written to the slab parameters. Called once a chunk: it makes no array of its own.
function callDecodeBox(decode, bytes, dtype, box, details, target, offset, strides) {
  if (box.length > 4 * MAX_BOX_AXES) throw new PcoError(`a chunk box has at most ${MAX_BOX_AXES} axes, got ${box.length / 4}`);
  const mod = getModule('pco');
  const code = dtypeCode(mod, dtype);
  return call(
    [bytes],
    (ptr, len) => {
      // After the input's copy: growing memory replaces HEAPU32.
      const heap = mod.HEAPU32;
      heap.set(box, mod._numdecode_pco_box_params() >>> 2);
      if (target === null) return decode(ptr, len, code, box.length / 4);
      let at = mod._numdecode_pco_slab_params() >>> 2;
      heap[at++] = offset;
      for (let i = 0; i < strides.length; i++) heap[at++] = strides[i];
      return decode(ptr, len, code, box.length / 4, target.address, target.byteLength);
    },
    details,
  );
}

/** Lets the module drop a large decode buffer once a read is over (it keeps up to 64 MB for the next). */
export function releaseBoxScratch() {
  getModule('pco')._numdecode_pco_release_box();
}

/**
 * Decodes `bytes` as decodeBox does, but places the box straight into `target` ({address,
 * byteLength}: wasm memory of the module's own, from malloc: a slab, or a Zarr readView's output):
 * its first value at `offset` (values into the target), then `strides` (values, one per stored
 * axis) apart.
 * @param {Uint8Array} bytes @param {string} dtype @param {Uint32Array} box from boxParams
 * @param {{address: number, byteLength: number}} target
 * @param {number} offset @param {number[]} strides
 * @param {{file?: string, dataset?: string}} [details]
 */
export function decodeBoxToTarget(bytes, dtype, box, target, offset, strides, details) {
  callDecodeBox(binding('pco', '_numdecode_pco_decode_box_into'), bytes, dtype, box, details, target, offset, strides);
}
