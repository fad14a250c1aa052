// Slabs: a read's chunks placed in wasm memory first, whole output rows at a time. A chunk narrower
// than the output lands as many short rows (a chunk of 91 x 180 values in an output 360 wide: 91
// rows), and copying each row out of wasm memory with its own set() cost as much as decoding the
// chunk. A slab is every chunk of one step along the output's outermost axis: contiguous in the
// output, so the module places each chunk's box into the slab (rows by memcpy) and the slab goes
// out with one set(). Used where the chunks come in order (a local folder read synchronously, in C
// order of chunk coordinates) and the slab is small; elsewhere each box is placed row by row.
import { decodeBoxToSlab, sizeSlab } from './chunk-decode.js';
import { fillBox } from './place.js';
import { getModule } from '../wasm/load.js';

// The largest slab worth assembling (the module keeps it between reads until releaseBoxScratch).
export const MAX_SLAB_BYTES = 8 * 1024 * 1024;

/**
 * A slab writer for a read, or null where slabs do not apply: chunks from a store that does not
 * lend them in order, F or transposed order, a box that lands in one piece anyway, a slab too big.
 * @param {object} layout from arrayLayout
 * @param {import('./plan.js').DimPart[][]} parts per array axis, from dimensionParts
 * @param {{shape: number[], strides: number[]}} geometry the output's, in stored order
 * @param {number[]} storedOutputAxes the array axes the output keeps, in stored order
 * @param {ArrayBufferView} data the output (its class fills the slab for missing chunks)
 * @param {boolean} inOrder whether chunks arrive in C order of chunk coordinates, each consumed at once
 */
export function slabWriter(layout, parts, geometry, storedOutputAxes, data, inOrder) {
  const rank = layout.shape.length;
  if (!inOrder || layout.shard || storedOutputAxes.length === 0) return null;
  if (!layout.order.every((axis, i) => axis === i)) return null; // chunks are visited in C order of array axes
  const outer = storedOutputAxes[0];
  // Along the axes after the outer one, a chunk must not cover the output whole (then its box is one piece).
  const inner = storedOutputAxes.slice(1);
  if (inner.every((axis, j) => parts[axis].length === 1 && parts[axis][0].count === geometry.shape[j + 1])) return null;
  const width = layout.bytesPerElement;
  const outBytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const rowValues = geometry.strides[0]; // values of one step along the outer output axis
  const maxCount = Math.max(...parts[outer].map((p) => p.count));
  if (maxCount * rowValues * width > MAX_SLAB_BYTES) return null;
  const chunksPerSlab = inner.reduce((n, axis) => n * parts[axis].length, 1);
  // Each stored axis' stride in the slab (values); axes the output drops have one position.
  const kept = new Map(storedOutputAxes.map((axis, j) => [axis, geometry.strides[j]]));
  const strides = Array.from({ length: rank }, (_, axis) => kept.get(axis) ?? 0);
  const slabOffset = (itemParts) => inner.reduce((sum, axis, j) => sum + itemParts[axis].out * geometry.strides[j + 1], 0);

  let current = -1; // the outer chunk index of the slab being assembled
  let left = 0;
  let count = 0;
  let address = 0;
  const begin = (itemParts) => {
    const part = itemParts[outer];
    if (part.chunk === current) return part;
    if (left !== 0) throw new Error(`zarr read: slab ${current} was left with ${left} chunks unplaced`);
    current = part.chunk;
    left = chunksPerSlab;
    count = part.count;
    address = sizeSlab(count * rowValues * width);
    return part;
  };
  const finish = (part) => {
    if (--left > 0) return;
    const bytes = count * rowValues * width;
    outBytes.set(getModule('pco').HEAPU8.subarray(address, address + bytes), part.out * rowValues * width);
  };
  return {
    /** Decodes one chunk into the slab; the slab goes to the output with its last chunk. */
    chunk(item, bytes, box, details) {
      const part = begin(item.parts);
      decodeBoxToSlab(bytes, layout.pcoDtype, box, slabOffset(item.parts), strides, details);
      finish(part);
    },
    /** A chunk not stored: its box in the slab takes the fill value. */
    missing(item) {
      const part = begin(item.parts);
      const heap = getModule('pco').HEAPU8.buffer;
      const slab = new data.constructor(heap, address, count * rowValues);
      const counts = storedOutputAxes.map((axis) => item.parts[axis].count);
      fillBox(slab, { shape: [count, ...geometry.shape.slice(1)], strides: geometry.strides }, slabOffset(item.parts), counts, layout.fill);
      finish(part);
    },
  };
}
