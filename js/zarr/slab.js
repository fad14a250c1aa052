// Slabs: a read's chunks placed in wasm memory first, whole output rows at a time. A chunk narrower
// than the output lands as many short rows (a chunk of 91 x 180 values in an output 360 wide: 91
// rows), and copying each row out of wasm memory with its own set() cost as much as decoding the
// chunk. A slab is every chunk of one step along the output's outermost axis: contiguous in the
// output, so the module places each chunk's box into the slab (rows by memcpy) and the slab goes
// out with one set(). Used where the chunks of a slab come one after another (a local folder read
// synchronously, in C order of chunk coordinates, on the calling thread or by a worker given whole
// slabs) and the slab is small; elsewhere each box is placed row by row (js/zarr/place.js).
import { decodeBoxToSlab, sizeSlab } from './chunk-decode.js';
import { fillBox } from './place.js';
import { getModule } from '../wasm/load.js';

// The largest slab assembled: it is working memory on top of the output (the module keeps it
// until the read's releaseBoxScratch), and a slab of a few rows already makes the copies few.
export const MAX_SLAB_BYTES = 1024 * 1024;

/**
 * Where each chunk goes in slabs, or null where slabs do not apply: chunks that do not come in C
 * order, F or transposed order, a box that lands in one piece anyway, a slab too big.
 * @param {object} layout from arrayLayout
 * @param {import('./plan.js').DimPart[][]} parts per array axis, from dimensionParts
 * @param {{shape: number[], strides: number[]}} geometry the output's, in stored order
 * @param {number[]} storedOutputAxes the array axes the output keeps, in stored order
 * @param {boolean} inOrder whether chunks arrive in C order of chunk coordinates
 * @returns {null | {strides: number[], rowValues: number, chunksPerSlab: number,
 *   of: (itemParts: object[]) => {base: number, values: number, offset: number}}}
 *   strides: each stored axis' stride in a slab (values); of(): a chunk's slab (its first value in
 *   the output and its length) and the chunk's box's first value in it
 */
export function slabPlan(layout, parts, geometry, storedOutputAxes, inOrder) {
  if (!inOrder || layout.shard || storedOutputAxes.length === 0) return null;
  if (!layout.order.every((axis, i) => axis === i)) return null; // chunks are visited in C order of array axes
  const outer = storedOutputAxes[0];
  // Along the axes after the outer one, a chunk must not cover the output whole (then its box is one piece).
  const inner = storedOutputAxes.slice(1);
  if (inner.every((axis, j) => parts[axis].length === 1 && parts[axis][0].count === geometry.shape[j + 1])) return null;
  const rowValues = geometry.strides[0]; // values of one step along the outer output axis
  const maxCount = Math.max(...parts[outer].map((p) => p.count));
  if (maxCount * rowValues * layout.bytesPerElement > MAX_SLAB_BYTES) return null;
  // Axes the output drops have one position: their stride does not matter.
  const kept = new Map(storedOutputAxes.map((axis, j) => [axis, geometry.strides[j]]));
  const strides = Array.from({ length: layout.shape.length }, (_, axis) => kept.get(axis) ?? 0);
  return {
    strides,
    rowValues,
    chunksPerSlab: inner.reduce((n, axis) => n * parts[axis].length, 1),
    of(itemParts) {
      const part = itemParts[outer];
      const offset = inner.reduce((sum, axis, j) => sum + itemParts[axis].out * geometry.strides[j + 1], 0);
      return { base: part.out * rowValues, values: part.count * rowValues, offset };
    },
  };
}

/**
 * Assembles slabs in the Pco module and copies each to the output when the next one starts, and
 * the last at end().
 * @param {{strides: number[], rowValues: number}} plan from slabPlan
 * @param {{shape: number[], strides: number[]}} geometry the output's, in stored order
 * @param {ArrayBufferView} data the output (its class fills the slab for missing chunks)
 * @param {string} dtype numdecode's dtype name
 * @param {*} fill the array's fill value
 */
export function slabAssembler(plan, geometry, data, dtype, fill) {
  const width = data.BYTES_PER_ELEMENT;
  const outBytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  let base = -1; // the output position of the slab being assembled
  let values = 0;
  let address = 0;
  const begin = (slab) => {
    if (slab.base === base) return;
    end();
    base = slab.base;
    values = slab.values;
    address = sizeSlab(values * width);
  };
  function end() {
    if (base < 0) return;
    outBytes.set(getModule('pco').HEAPU8.subarray(address, address + values * width), base * width);
    base = -1;
  }
  return {
    /** Decodes one chunk into its slab. @param {{base: number, values: number, offset: number}} slab from plan.of */
    chunk(slab, bytes, box, details) {
      begin(slab);
      decodeBoxToSlab(bytes, dtype, box, slab.offset, plan.strides, details);
    },
    /** A chunk not stored: its box in the slab takes the fill value. @param {number[]} counts its extent per output axis */
    missing(slab, counts) {
      begin(slab);
      const view = new data.constructor(getModule('pco').HEAPU8.buffer, address, values);
      fillBox(view, { shape: [values / plan.rowValues, ...geometry.shape.slice(1)], strides: geometry.strides }, slab.offset, counts, fill);
    },
    /** Copies the last slab out. */
    end,
  };
}
