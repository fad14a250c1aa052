// Matrix.read(start, end, { into }) (the caller's arrays) and Matrix.readView (index and values
// left in wasm memory): bit-exact against the corpus and the fresh read for directories and HDF5
// files, ranges not starting at 0, argument errors, release rules, memory reuse, aborts, and
// fresh results that own their buffers (the worker pool moves them without copies).
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import * as bpcells from '../../../js/bpcells/index.js';
import { BpcellsError, CODES } from '../../../js/errors.js';
import { init } from '../../../js/index.js';
import { viewOutput } from '../../../js/bpcells/slice-output.js';
import { getModule } from '../../../js/wasm/load.js';
import { releaseMemory } from '../../../js/wasm/memory.js';
import { liveViews } from '../../../js/wasm/views.js';
import { LARGE, cases, corruptCases, expected, sameBytes, setDir, slicePart, u8 } from '../helpers/bpcells-corpus.js';
import { corpusRoot } from '../helpers/corpus.js';

const MARK = 0x5a;
const ARRAY = { u32: Uint32Array, f32: Float32Array, f64: Float64Array };
const heapBuffer = () => getModule('bpcells').HEAPU8.buffer;

beforeAll(() => init({ formats: ['bpcells'] }));

function expectSlice(got, want) {
  expect(Array.from(got.idxptr)).toEqual(Array.from(want.idxptr));
  expect(sameBytes(u8(got.index), want.index)).toBe(true);
  expect(sameBytes(u8(got.val), want.val)).toBe(true); // bit-exact, also -0 and NaN payloads
}

// A typed array at element offset 3 of a larger marked buffer, with 5 spare elements after `n`.
function marked(Type, n) {
  const backing = new Uint8Array((n + 8) * Type.BYTES_PER_ELEMENT).fill(MARK);
  return { backing, array: new Type(backing.buffer, 3 * Type.BYTES_PER_ELEMENT, n + 5) };
}

function untouchedOutside(backing, Type, n) {
  const el = Type.BYTES_PER_ELEMENT;
  const head = backing.subarray(0, 3 * el);
  const tail = backing.subarray((3 + n) * el);
  return head.every((b) => b === MARK) && tail.every((b) => b === MARK);
}

// Reads [a, b) fresh, into marked arrays and as a view; all three must equal the corpus.
async function checkThreeWays(m, exp, a, b) {
  const want = slicePart(exp, a, b, ARRAY[m.dtype].BYTES_PER_ELEMENT);
  const fresh = await m.read(a, b);
  expectSlice(fresh, want);
  const nnz = fresh.index.length;
  const outs = { idxptr: marked(Float64Array, b - a + 1), index: marked(Uint32Array, nnz), val: marked(ARRAY[m.dtype], nnz) };
  const into = { idxptr: outs.idxptr.array, index: outs.index.array, val: outs.val.array };
  const filled = await m.read(a, b, { into });
  expectSlice(filled, want);
  expect(filled.index.buffer).toBe(outs.index.backing.buffer);
  expect(filled.val.buffer).toBe(outs.val.backing.buffer);
  expect(filled.idxptr.buffer).toBe(outs.idxptr.backing.buffer);
  expect(filled.index.length).toBe(nnz);
  expect(untouchedOutside(outs.index.backing, Uint32Array, nnz)).toBe(true);
  expect(untouchedOutside(outs.val.backing, ARRAY[m.dtype], nnz)).toBe(true);
  expect(untouchedOutside(outs.idxptr.backing, Float64Array, b - a + 1)).toBe(true);
  const view = await m.readView(a, b);
  try {
    expect(view.dtype).toBe(m.dtype);
    expect(view.nnz).toBe(nnz);
    expect(view.index).toBeInstanceOf(Uint32Array);
    expect(view.val).toBeInstanceOf(ARRAY[m.dtype]);
    expect(view.index.buffer).toBe(heapBuffer()); // in wasm memory: no copy
    expect(view.val.buffer).toBe(heapBuffer());
    expectSlice(view, want);
  } finally {
    view.release();
  }
}

describe('directories: into and view equal the corpus and the fresh read', () => {
  test.each(cases.map((c) => [c.name, c]))('%s', async (_name, c) => {
    const m = await bpcells.open(path.join(setDir, c.dir));
    try {
      const exp = expected(c);
      await checkThreeWays(m, exp, 0, m.major);
      if (m.major > 2) await checkThreeWays(m, exp, Math.floor(m.major / 3) + 1, m.major - 1); // not from 0
    } finally {
      m.close();
    }
  });

  test('lazily read seek tables (prefetchBytes 0) give the same values, from a chunk middle on', async () => {
    const c = cases.find((x) => x.name === LARGE);
    const m = await bpcells.open(path.join(setDir, c.dir), { prefetchBytes: 0 });
    await checkThreeWays(m, expected(c), 1234, 1302);
    m.close();
  });
});

// The HDF5 corpus: the same reader behind an h5wasm group source.
const h5Dir = path.join(corpusRoot, 'bpcells-hdf5');
const h5Cases = JSON.parse(readFileSync(path.join(h5Dir, 'manifest.json'), 'utf8'));
const H5_DTYPE = { uint: Uint32Array, float: Float32Array, double: Float64Array };

function h5Expected(c) {
  const e = JSON.parse(readFileSync(path.join(h5Dir, c.dir, 'expected.json'), 'utf8'));
  const s = e.stored;
  const file = (f) => new Uint8Array(readFileSync(path.join(h5Dir, c.dir, f)));
  const idxptr = s.idxptr_file ? Float64Array.from(new BigUint64Array(file(s.idxptr_file).buffer), Number) : Float64Array.from(s.idxptr);
  const index = s.index_file ? file(s.index_file) : u8(Uint32Array.from(s.index));
  const val = s.val_file ? file(s.val_file) : u8(H5_DTYPE[e.dtype].from(s.val));
  return { idxptr, index, val };
}

describe('HDF5 files: into and view equal the corpus', () => {
  const names = ['chunk_boundary_cols', 'packed_double_col_gzip6', 'unicode_names_packed_float_row', 'large_packed_uint_col_20000x2000'];
  test.each(names)('%s', async (name) => {
    const c = h5Cases.find((x) => x.name === name);
    const m = await bpcells.open(path.join(h5Dir, c.dir, 'matrix.h5'));
    try {
      const exp = h5Expected(c);
      await checkThreeWays(m, exp, 0, m.major);
      await checkThreeWays(m, exp, 1, Math.max(1, m.major - 1));
    } finally {
      m.close();
    }
  });
});

describe('argument errors', () => {
  let m;
  let nnz;
  beforeAll(async () => {
    m = await bpcells.open(path.join(setDir, cases.find((x) => x.name === 'packed_uint_col_names').dir));
    nnz = m.nnz;
  });
  afterAll(() => m.close());

  test('a wrong class is a TypeError naming the class wanted', async () => {
    await expect(m.read(0, m.major, { into: { index: new Int32Array(nnz) } })).rejects.toThrow(/into.index must be a Uint32Array, got Int32Array/);
    await expect(m.read(0, m.major, { into: { val: new Float32Array(nnz) } })).rejects.toThrow(
      /into.val must be a Uint32Array \(the matrix holds u32 values\), got Float32Array/,
    );
    await expect(m.read(0, m.major, { into: { idxptr: [] } })).rejects.toThrow(/into.idxptr must be a Float64Array, got Array/);
    await expect(m.read(0, m.major, { into: new Uint32Array(nnz) })).rejects.toThrow(TypeError);
    await expect(m.read(0, m.major, { into: null })).rejects.toThrow(/options.into must be an object/);
    await expect(m.read(0, m.major, { into: { indices: new Uint32Array(nnz) } })).rejects.toThrow(/unknown into.indices/);
    await expect(m.readView(0, m.major, { into: {} })).rejects.toThrow(/unknown option "into"/);
    await expect(m.readView(2, 1)).rejects.toThrow(RangeError);
  });

  test('too small is a RangeError naming the length needed, and nothing is written', async () => {
    const index = new Uint32Array(nnz - 1).fill(7);
    const val = new Uint32Array(nnz).fill(7);
    const err = await m.read(0, m.major, { into: { index, val } }).catch((e) => e);
    expect(err).toBeInstanceOf(RangeError);
    expect(err.message).toMatch(new RegExp(`into.index has room for ${nnz - 1} values, the slice needs ${nnz}`));
    expect(index.every((v) => v === 7) && val.every((v) => v === 7)).toBe(true);
    const ptr = new Float64Array(m.major).fill(7); // needs major + 1
    await expect(m.read(0, m.major, { into: { idxptr: ptr } })).rejects.toThrow(new RegExp(`into.idxptr has room for ${m.major} values, the slice needs ${m.major + 1}`));
    expect(ptr.every((v) => v === 7)).toBe(true);
  });

  test('parts not given are fresh; a larger array receives the slice at its start', async () => {
    const index = new Uint32Array(nnz + 100).fill(9);
    const r = await m.read(0, m.major, { into: { index } });
    expect(r.index.buffer).toBe(index.buffer);
    expect(r.index.length).toBe(nnz);
    expect(index[nnz]).toBe(9);
    expect(r.val.buffer).not.toBe(index.buffer);
    expect(sameBytes(u8(r.val), expected(cases.find((x) => x.name === 'packed_uint_col_names')).val)).toBe(true);
  });
});

describe('views', () => {
  const c = cases.find((x) => x.name === LARGE);
  let m;
  let exp;
  beforeAll(async () => {
    m = await bpcells.open(path.join(setDir, c.dir));
    exp = expected(c);
  });
  afterAll(() => m.close());

  test('a released view refuses its values; release and Symbol.dispose are one; twice is harmless', async () => {
    const live = bpcells.viewStats().live;
    const view = await m.readView(0, 40);
    expect(bpcells.viewStats().live).toBe(live + 1);
    expect(view.length).toBe(view.nnz);
    expect(view.index.length).toBe(view.length);
    if (typeof Symbol.dispose === 'symbol') expect(view[Symbol.dispose]).toBe(view.release);
    expect(view.released).toBe(false);
    view.release();
    expect(view.released).toBe(true);
    expect(() => view.index).toThrow(/readView\(0, 40\): the view was released/);
    expect(() => view.val).toThrow(/released/);
    view.release();
    expect(bpcells.viewStats().live).toBe(live);
  });

  test('a view allocation holds the module memory from malloc on: releaseMemory() refuses until fail() or release()', async () => {
    const mod = getModule('bpcells');
    const what = 'readView(test)';
    const pending = viewOutput(what, 'f32', 5, 3);
    expect(liveViews(mod)[what]).toBe(1);
    const err = await releaseMemory({ formats: ['bpcells'] }).catch((e) => e);
    expect(err.code).toBe(CODES.IN_USE);
    pending.fail();
    expect(liveViews(mod)[what]).toBeUndefined();
    const out = viewOutput(what, 'f32', 5, 3);
    new Float32Array(mod.HEAPU8.buffer, out.val.ptr, 5).set([1, 2, 3, 4, 5]);
    const view = out.finish();
    expect(Array.from(view.val)).toEqual([1, 2, 3, 4, 5]);
    expect(liveViews(mod)[what]).toBe(2); // index and val
    view.release();
    expect(liveViews(mod)[what]).toBeUndefined();
  });

  test('close() releases too, deprecated: it warns once (views are released, handles closed)', async () => {
    const live = bpcells.viewStats().live;
    const warnings = [];
    const spy = jest.spyOn(process, 'emitWarning').mockImplementation((message) => warnings.push(message));
    try {
      for (const [a, b] of [[0, 10], [10, 20]]) {
        const view = await m.readView(a, b);
        expect(bpcells.viewStats().live).toBe(live + 1);
        view.close();
        expect(view.released).toBe(true);
        expect(() => view.val).toThrow(/released/);
        expect(bpcells.viewStats().live).toBe(live);
      }
    } finally {
      spy.mockRestore();
    }
    expect(warnings).toEqual(['numdecode: bpcells view close() is deprecated; use release()']);
  });

  test('release() frees the memory: the next view of the same size reuses it, and cycles do not grow memory', async () => {
    const before = bpcells.viewStats();
    const first = await m.readView(10, 500);
    expect(bpcells.viewStats()).toEqual({ live: before.live + 1, bytes: before.bytes + first.byteLength });
    expect(first.byteLength).toBe(8 * first.nnz);
    const offset = first.index.byteOffset;
    first.release();
    expect(bpcells.viewStats()).toEqual(before);
    const second = await m.readView(10, 500);
    expect(second.index.byteOffset).toBe(offset);
    second.release();
    (await m.readView()).release(); // the first whole read may grow memory once
    const heapSize = getModule('bpcells').HEAPU8.length;
    for (let i = 0; i < 4; i++) {
      const view = await m.readView();
      expect(view.nnz).toBe(c.nnz);
      view.release();
    }
    expect(getModule('bpcells').HEAPU8.length).toBe(heapSize);
    expect(bpcells.viewStats()).toEqual(before);
  });

  test('memory growth detaches arrays taken earlier; the view gives fresh, correct ones', async () => {
    const view = await m.readView(100, 300);
    const early = view.index;
    const mod = getModule('bpcells');
    const big = mod._malloc(mod.HEAPU8.length); // more than is free: memory must grow
    try {
      expect(big).not.toBe(0);
      expect(early.length).toBe(0); // detached: the documented invalidation
      expectSlice(view, slicePart(exp, 100, 300, 4));
    } finally {
      mod._free(big);
      view.release();
    }
  });

  test('a damaged matrix fails with BpcellsError and leaves no view behind', async () => {
    const live = bpcells.viewStats();
    // Damage found while decoding (open() accepts these matrices).
    const bad = corruptCases.filter((x) => ['index_ge_nrow_packed', 'index_ge_nrow_unpacked'].includes(x.name));
    expect(bad.length).toBe(2);
    for (const k of bad) {
      const dm = await bpcells.open(path.join(setDir, k.dir));
      const err = await dm.readView().catch((e) => e);
      dm.close();
      expect(err).toBeInstanceOf(BpcellsError);
      expect(err.message).toMatch(/out of range/);
      expect(err.code).toBe(CODES.BAD_DATA);
    }
    expect(bpcells.viewStats()).toEqual(live);
  });
});

describe('aborts', () => {
  const c = cases.find((x) => x.name === 'packed_uint_col_names');
  const file = (name) => new Uint8Array(readFileSync(path.join(setDir, c.dir, name)));
  // A source whose reads, once hold() is called, wait for release() (at most 2 s each), to abort
  // reads while they are under way.
  function gatedSource() {
    let gate = null;
    let open = () => {};
    const underWay = [];
    const source = {
      size: async (name) => statSync(path.join(setDir, c.dir, name)).size,
      read: (name, start, end) => {
        let timer;
        const wait = gate ? Promise.race([gate, new Promise((resolve) => (timer = setTimeout(resolve, 2000)))]) : Promise.resolve();
        wait.then(() => clearTimeout(timer));
        const p = wait.then(() => file(name).subarray(start, end));
        underWay.push(p);
        return p;
      },
    };
    const hold = () => (gate = new Promise((resolve) => (open = resolve)));
    return { source, underWay, hold, release: () => open() };
  }

  // Lets the abandoned read finish in the background: until no new source reads appear.
  async function settle(g) {
    g.release();
    for (let round = 0; round < 20; round++) {
      const n = g.underWay.length;
      await Promise.allSettled(g.underWay);
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (g.underWay.length === n) return;
    }
  }

  test('an aborted into-read writes nothing into the caller arrays, even when its data arrives later', async () => {
    const g = gatedSource();
    const m = await bpcells.open(g.source, { prefetchBytes: 0 });
    const index = new Uint32Array(m.nnz).fill(7);
    const controller = new AbortController();
    g.hold();
    const before = g.underWay.length;
    const pending = m.read(0, m.major, { into: { index }, signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(g.underWay.length).toBeGreaterThan(before); // the read is waiting for its data
    controller.abort();
    const err = await pending.catch((e) => e);
    expect(err.code).toBe(CODES.ABORTED);
    await settle(g);
    expect(index.every((v) => v === 7)).toBe(true);
    // The same read, not aborted, fills the array (so the check above could fail).
    const r = await m.read(0, m.major, { into: { index } });
    expect(sameBytes(u8(r.index), expected(c).index)).toBe(true);
    m.close();
  });

  test('an aborted readView rejects with ERR_ABORTED and no view stays live', async () => {
    const g = gatedSource();
    const m = await bpcells.open(g.source, { prefetchBytes: 0 });
    const live = bpcells.viewStats().live;
    const controller = new AbortController();
    g.hold();
    const pending = m.readView(0, m.major, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    expect((await pending.catch((e) => e)).code).toBe(CODES.ABORTED);
    await settle(g);
    expect(bpcells.viewStats().live).toBe(live);
    const already = await m.readView(0, 1, { signal: AbortSignal.abort() }).catch((e) => e);
    expect(already.code).toBe(CODES.ABORTED);
    m.close();
  });
});

test('fresh results own exactly their buffers, so the worker pool transfers them without copies', async () => {
  const c = cases.find((x) => x.name === 'unpacked_double_col_colnames');
  const r = await bpcells.readSlice(path.join(setDir, c.dir), {}, 2, 9);
  for (const part of [r.idxptr, r.index, r.val]) {
    expect(part.byteOffset).toBe(0);
    expect(part.buffer.byteLength).toBe(part.byteLength);
  }
  expectSlice(r, slicePart(expected(c), 2, 9, 8));
});
