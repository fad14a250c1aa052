// Slabs: a read's chunks placed in wasm memory first, whole output rows at a time. A chunk narrower
// than the output lands as many short rows (a chunk of 91 x 180 values in an output 360 wide: 91
// rows), and copying each row out of wasm memory with its own set() cost as much as decoding the
// chunk. A slab is a row of chunks: the chunks that differ only along the output's last axis, which
// together cover that axis whole. The module places each chunk's box into the slab (rows by
// memcpy) and the slab goes out in as many pieces as one step of its other axes (t2m: one piece of
// 91 x 360 values per slab instead of 91 rows for each of its two chunks). Used where the chunks of
// a slab come one after another (a local folder read synchronously, in C order of chunk
// coordinates, on the calling thread or by a worker given whole slabs) and the slab is small;
// elsewhere each box is placed row by row (js/zarr/place.js).
import { decodeBoxToTarget } from './chunk-decode.js';
import { fillBox, outputGeometry, placeBox } from './place.js';
import { CODES, ZarrError } from '../errors.js';
import { malloc } from '../wasm/heap.js';
import { getModule } from '../wasm/load.js';
import { holdMemory } from '../wasm/views.js';

// The largest slab assembled: it is working memory on top of the output (the read keeps it until
// it ends: slabAssembler's close()). tp's rows of chunks are 1.1 MB.
export const MAX_SLAB_BYTES = 2 * 1024 * 1024;

// Slabs follow chunks in C order of the array's axes: stored order must be the axes' own.
const inCOrder = (layout) => layout.order.every((axis, i) => axis === i);

/**
 * Where each chunk goes in slabs, or null where slabs do not apply: chunks that do not come in C
 * order, F or transposed order, one chunk across the output's last axis (its boxes are rows of the
 * output already), a slab too big.
 * @param {object} layout from arrayLayout
 * @param {import('./plan.js').DimPart[][]} parts per array axis, from dimensionParts
 * @param {{shape: number[], strides: number[]}} geometry the output's, in stored order
 * @param {number[]} storedOutputAxes the array axes the output keeps, in stored order
 * @param {boolean} inOrder whether chunks arrive in C order of chunk coordinates
 * @returns {null | {axes: number[], rank: number, chunksPerSlab: number,
 *   of: (itemParts: object[]) => {base: number, counts: number[], offset: number}}}
 *   axes, rank: storedOutputAxes and the array's rank (for slabStrides); of(): a chunk's slab (its
 *   first value in the output, its extent per output axis) and the chunk's first value in it
 */
export function slabPlan(layout, parts, geometry, storedOutputAxes, inOrder) {
  const rank = storedOutputAxes.length;
  if (!inOrder || layout.shard || rank < 2) return null;
  if (!inCOrder(layout)) return null;
  const last = storedOutputAxes[rank - 1];
  if (parts[last].length < 2) return null;
  const outer = storedOutputAxes.slice(0, -1);
  const maxValues = outer.reduce((n, axis) => n * Math.max(...parts[axis].map((p) => p.count)), geometry.shape[rank - 1]);
  if (maxValues * layout.bytesPerElement > MAX_SLAB_BYTES) return null;
  return {
    axes: storedOutputAxes,
    rank: layout.shape.length,
    chunksPerSlab: parts[last].length,
    of(itemParts) {
      const base = outer.reduce((sum, axis, j) => sum + itemParts[axis].out * geometry.strides[j], 0);
      const counts = [...outer.map((axis) => itemParts[axis].count), geometry.shape[rank - 1]];
      return { base, counts, offset: itemParts[last].out };
    },
  };
}

/**
 * The one slab of a readView: the whole output, which every chunk of any selection, in any order,
 * decodes into where it lies (same shape of answer as slabPlan).
 * @param {object} layout from arrayLayout
 * @param {{shape: number[], strides: number[]}} geometry the output's, in stored order
 * @param {number[]} storedOutputAxes the array axes the output keeps, in stored order
 */
export function wholeOutputPlan(layout, geometry, storedOutputAxes) {
  return {
    whole: true,
    // A chunk's box runs over the stored axes: each output axis' stride goes to its stored position
    // (the array axis itself where stored order is C order, as slabPlan requires).
    axes: storedOutputAxes.map((axis) => layout.order.indexOf(axis)),
    rank: layout.shape.length,
    of: (itemParts) => ({ base: 0, counts: geometry.shape, offset: storedOutputAxes.reduce((sum, axis, j) => sum + itemParts[axis].out * geometry.strides[j], 0) }),
  };
}

/**
 * For a sharded array read by a worker pool from a local folder: each chunk's slab is its shard's
 * part of the selection (js/zarr/pool-decode.js hands a shard's chunks, missing ones too, one after
 * another, and batches hold whole slabs); null where that part can exceed MAX_SLAB_BYTES or the
 * array is not in C order. Same shape of answer as slabPlan.
 * @param {object} layout from arrayLayout (sharded)
 * @param {import('./plan.js').DimPart[][]} parts per array axis
 * @param {{shape: number[], strides: number[]}} geometry the output's, in stored order
 * @param {number[]} storedOutputAxes the array axes the output keeps, in stored order
 */
export function shardSlabPlan(layout, parts, geometry, storedOutputAxes) {
  if (!layout.shard || storedOutputAxes.length === 0) return null;
  if (!inCOrder(layout)) return null;
  // Per array axis: each shard's selected extent along it, {lo, hi} in output positions, by shard.
  const spans = parts.map((list, axis) => {
    const bySpan = new Map();
    for (const p of list) {
      const shard = Math.floor(p.chunk / layout.shard.chunksPerShard[axis]);
      const span = bySpan.get(shard) ?? { lo: p.out, hi: p.out, chunks: 0 };
      span.hi = p.out + p.count;
      span.chunks++;
      bySpan.set(shard, span);
    }
    return bySpan;
  });
  const widest = (axis, key) => Math.max(...[...spans[axis].values()].map((span) => (key === 'chunks' ? span.chunks : span.hi - span.lo)));
  const maxValues = storedOutputAxes.reduce((n, axis) => n * widest(axis, 'values'), 1);
  if (maxValues * layout.bytesPerElement > MAX_SLAB_BYTES) return null;
  return {
    axes: storedOutputAxes,
    rank: layout.shape.length,
    chunksPerSlab: parts.reduce((n, _, axis) => n * widest(axis, 'chunks'), 1),
    of(itemParts) {
      const span = storedOutputAxes.map((axis) => spans[axis].get(Math.floor(itemParts[axis].chunk / layout.shard.chunksPerShard[axis])));
      const counts = span.map(({ lo, hi }) => hi - lo);
      const { strides } = outputGeometry(counts);
      return {
        base: span.reduce((sum, { lo }, j) => sum + lo * geometry.strides[j], 0),
        counts,
        offset: storedOutputAxes.reduce((sum, axis, j) => sum + (itemParts[axis].out - span[j].lo) * strides[j], 0),
      };
    },
  };
}

/**
 * Each stored axis' stride (values) in a slab of `counts` (C order over the output axes `axes`);
 * axes the output drops have one position, stride 0.
 * @param {number[]} counts @param {number[]} axes @param {number} rank
 */
export function slabStrides(counts, axes, rank) {
  const { strides } = outputGeometry(counts);
  const byAxis = new Array(rank).fill(0);
  axes.forEach((axis, j) => (byAxis[axis] = strides[j]));
  return byAxis;
}

/**
 * Assembles slabs in the Pco module and copies each to the output when the next one starts, and
 * the last at end(). With `target` (a readView's output, in the module's memory) and
 * wholeOutputPlan the one slab is the whole output, there already: chunks decode straight into it
 * and nothing is copied; with slabPlan each slab is copied into the target within the module's
 * memory (for t2m 3-4 % faster than placing each chunk's 720-byte rows straight into memory that
 * is not in cache).
 * @param {{axes: number[], rank: number, whole?: boolean}} plan from slabPlan (or wholeOutputPlan)
 * @param {{shape: number[], strides: number[]}} geometry the output's, in stored order
 * @param {ArrayBufferView | null} data the output (its class fills the slab for missing chunks);
 *   null with a target
 * @param {string} dtype numdecode's dtype name
 * @param {*} fill the array's fill value
 * @param {{address: number, byteLength: number, Type: Function}} [target] Type: the output's class
 */
export function slabAssembler(plan, geometry, data, dtype, fill, target) {
  const Type = target ? target.Type : data.constructor;
  const width = Type.BYTES_PER_ELEMENT;
  const outBytes = target ? null : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  // Chunks decode straight into a target for the whole-output plan; row slabs are copied into it.
  const direct = Boolean(target && plan.whole);
  // This assembler's own slab memory, grown as needed and freed by close(): reads running at the
  // same time each have theirs (one slab for the module let a read overwrite another's values).
  // It counts as holding the module's memory, so releaseMemory() cannot replace the module under it.
  let own = { address: 0, bytes: 0 };
  let unhold = null;
  const slabMemory = (bytes) => {
    if (own.bytes < bytes) {
      const mod = getModule('pco');
      if (own.address) mod._free(own.address);
      own = { address: 0, bytes: 0 };
      const address = malloc(mod, Math.max(bytes, 1));
      if (address === 0) throw new ZarrError(`zarr read: out of wasm memory for a slab of ${bytes} bytes`, { code: CODES.OUTPUT_LIMIT });
      own = { address, bytes };
      unhold ??= holdMemory(mod, 'zarr read slab');
    }
    return own.address;
  };
  let current = null; // the slab being assembled: {base, counts, values, strides, address}
  const begin = (slab) => {
    if (current?.base === slab.base) return current;
    end();
    const values = slab.counts.reduce((a, b) => a * b, 1);
    current = { base: slab.base, counts: slab.counts, values, strides: slabStrides(slab.counts, plan.axes, plan.rank), address: direct ? target.address : slabMemory(values * width) };
    return current;
  };
  function end() {
    if (current === null) return;
    const { address, values, base, counts } = current;
    if (!direct) {
      // Views made now: allocating a slab or decoding may have grown the module's memory.
      const heap = getModule('pco').HEAPU8;
      const into = target ? heap.subarray(target.address, target.address + target.byteLength) : outBytes;
      placeBox(into, width, geometry, base, counts, heap.subarray(address, address + values * width));
    }
    current = null;
  }
  return {
    /** Decodes one chunk into its slab. @param {{base: number, counts: number[], offset: number}} slab from plan.of */
    chunk(slab, bytes, box, details) {
      const { strides } = begin(slab);
      const into = direct ? target : { address: current.address, byteLength: current.values * width };
      decodeBoxToTarget(bytes, dtype, box, into, slab.offset, strides, details);
    },
    /** A chunk not stored: its box in the slab takes the fill value. @param {number[]} counts its extent per output axis */
    missing(slab, counts) {
      const { address, values } = begin(slab);
      const view = new Type(getModule('pco').HEAPU8.buffer, address, values);
      fillBox(view, outputGeometry(slab.counts), slab.offset, counts, fill);
    },
    /** Copies the last slab out. */
    end,
    /** Frees the slab memory (after end(), or when the read failed: then nothing is copied). */
    close() {
      current = null;
      if (own.address) getModule('pco')._free(own.address);
      own = { address: 0, bytes: 0 };
      unhold?.();
      unhold = null;
    },
  };
}

/**
 * Chunks read together (a shard's range) in rows: the chunks that differ only along the output's
 * last axis, in the order each row's first chunk comes (a range lists its chunks in their order in
 * the shard file: Morton order from zarr-python). Each row is one slab (tiledSlab): its pieces are
 * as wide as the whole shard's would be, from a fraction of the memory (counts: a row of 4 chunks,
 * 512 KB, where the shard's 16 took 2 MiB).
 * @template T
 * @param {number[]} storedOutputAxes the array axes the output keeps, in stored order
 * @param {T[]} chunks
 * @param {(chunk: T) => import('./plan.js').DimPart[]} partsOf a chunk's parts, one per array axis
 * @returns {T[][]}
 */
export function chunkRows(storedOutputAxes, chunks, partsOf) {
  const outer = storedOutputAxes.slice(0, -1);
  const rows = new Map();
  for (const c of chunks) {
    const parts = partsOf(c);
    const key = outer.map((axis) => parts[axis].chunk).join();
    const row = rows.get(key);
    if (row) row.push(c);
    else rows.set(key, [c]);
  }
  return [...rows.values()];
}

/**
 * A slab for chunks read together (a row of a shard's range, chunkRows), or null: when their
 * boxes tile one box of the output (no hole: a chunk of the shard missing, say) of at most
 * MAX_SLAB_BYTES, in C order. They are then decoded into it and it goes out in pieces of the
 * row's width, not a row of each chunk at a time (counts: 256-value rows of 4 chunks become
 * 1024-value rows of one slab).
 * @param {object} layout from arrayLayout
 * @param {{shape: number[], strides: number[]}} geometry the output's, in stored order
 * @param {number[]} storedOutputAxes the array axes the output keeps, in stored order
 * @param {import('./plan.js').DimPart[][]} chunkParts each chunk's parts, one per array axis
 * @returns {null | {base: number, counts: number[], offsets: number[]}} the slab's first value in
 *   the output and extent per output axis, and each chunk's first value in it (for slabAssembler)
 */
export function tiledSlab(layout, geometry, storedOutputAxes, chunkParts) {
  if (chunkParts.length < 2 || storedOutputAxes.length === 0) return null;
  if (!inCOrder(layout)) return null;
  const lo = storedOutputAxes.map((axis) => Math.min(...chunkParts.map((parts) => parts[axis].out)));
  const hi = storedOutputAxes.map((axis) => Math.max(...chunkParts.map((parts) => parts[axis].out + parts[axis].count)));
  const counts = lo.map((l, j) => hi[j] - l);
  const values = counts.reduce((a, b) => a * b, 1);
  const covered = chunkParts.reduce((n, parts) => n + storedOutputAxes.reduce((m, axis) => m * parts[axis].count, 1), 0);
  if (covered !== values || values * layout.bytesPerElement > MAX_SLAB_BYTES) return null;
  const { strides: inSlab } = outputGeometry(counts);
  return {
    base: lo.reduce((sum, l, j) => sum + l * geometry.strides[j], 0),
    counts,
    offsets: chunkParts.map((parts) => storedOutputAxes.reduce((sum, axis, j) => sum + (parts[axis].out - lo[j]) * inSlab[j], 0)),
  };
}
