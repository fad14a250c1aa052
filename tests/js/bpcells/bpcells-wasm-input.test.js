// BPCells reads whose packed words are written into wasm memory once: a local directory is read
// straight into a wasmInput (synchronous reads, no JS copy), fetched bytes are copied in once,
// and the range stays there for later reads; JS arrays are filled piece by piece, and ranges too
// large to keep go through bounded blocks. Every read is checked bit-exact against what BPCells
// wrote (directory and HDF5 corpus), for the local and the asynchronous paths alike; a chunk
// damaged late in a stream; and readSync(start, end, target) of the I/O layer underneath.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as bpcells from '../../../js/bpcells/index.js';
import { BpcellsError, CODES, IoError } from '../../../js/errors.js';
import { openFile } from '../../../js/io/index.js';
import { init } from '../../../js/index.js';
import { getModule } from '../../../js/wasm/load.js';
import { LARGE, cases, expected, sameBytes, setDir, u8 } from '../helpers/bpcells-corpus.js';
import { corpusRoot } from '../helpers/corpus.js';

const CHUNK = 128;
const PIECE_VALUES = 2048 * CHUNK; // chunk-decoder.js: values per call for JS targets
const BLOCK_VALUES = 8192 * CHUNK; // chunks per block
const SMALL_CACHE = 1 << 20; // cacheBytes: 512 KiB kept per stream, less than a whole read needs

const c = cases.find((x) => x.name === LARGE);
const dir = path.join(setDir, c.dir);
let exp;

beforeAll(async () => {
  await init({ formats: ['bpcells'] });
  exp = expected(c);
});

// The same files as a {size, read} object: bytes arrive asynchronously (copied into wasm memory).
function objectSource(root, patch = {}) {
  const files = new Map();
  const file = (name) => {
    if (!files.has(name)) files.set(name, patch[name] ?? new Uint8Array(readFileSync(path.join(root, name))));
    return files.get(name);
  };
  return { size: async (name) => file(name).length, read: async (name, s, e) => file(name).subarray(s, e) };
}

function want(a, b) {
  const p0 = exp.idxptr[a];
  const p1 = exp.idxptr[b];
  return { idxptr: Array.from(exp.idxptr.subarray(a, b + 1), (x) => x - p0), index: exp.index.subarray(4 * p0, 4 * p1), val: exp.val.subarray(4 * p0, 4 * p1) };
}

function expectSlice(got, w) {
  expect(Array.from(got.idxptr)).toEqual(w.idxptr);
  expect(sameBytes(u8(got.index), w.index)).toBe(true);
  expect(sameBytes(u8(got.val), w.val)).toBe(true);
}

// Fresh, into (arrays larger than the slice, pre-filled) and view: all three bit-exact.
async function threeWays(m, a, b) {
  const w = want(a, b);
  expectSlice(await m.read(a, b), w);
  const n = w.index.length / 4;
  const into = { index: new Uint32Array(n + 3).fill(7), val: new Uint32Array(n + 3).fill(7) };
  expectSlice(await m.read(a, b, { into }), w);
  expect(Array.from(into.index.subarray(n))).toEqual([7, 7, 7]);
  const view = await m.readView(a, b);
  try {
    expectSlice(view, w);
  } finally {
    view.release();
  }
}

// [a, b): whole, from a chunk middle across pieces and blocks, a middle part, one column.
const RANGES = [
  [0, 3000],
  [1, 2999],
  [700, 2300],
  [1234, 1235],
];

describe('pieces and blocks across column ranges equal the corpus', () => {
  test('the ranges cross piece and block boundaries and start inside a chunk', () => {
    expect(exp.idxptr[1] % CHUNK).not.toBe(0);
    expect(exp.idxptr[2999] - exp.idxptr[1]).toBeGreaterThan(3 * BLOCK_VALUES);
    expect(exp.idxptr[2300] - exp.idxptr[700]).toBeGreaterThan(4 * PIECE_VALUES);
  });

  const SOURCES = [
    ['local directory (read into wasm memory, kept)', () => bpcells.open(dir)],
    ['local directory, small cacheBytes (blocks read into wasm memory)', () => bpcells.open(dir, { cacheBytes: SMALL_CACHE })],
    ['{size, read} object (bytes copied in once, kept)', () => bpcells.open(objectSource(dir))],
    ['{size, read} object, small cacheBytes (blocks copied in)', () => bpcells.open(objectSource(dir), { cacheBytes: SMALL_CACHE })],
  ];
  test.each(SOURCES)('%s', async (_name, openIt) => {
    const m = await openIt();
    try {
      for (const [a, b] of RANGES) await threeWays(m, a, b);
    } finally {
      m.close();
    }
  });
});

describe('a local directory is written into wasm memory once', () => {
  const payload = (name) => statSync(path.join(dir, name)).size - 8;

  test('a whole read reads each data file once, whole; reads inside that range read nothing more', async () => {
    const m = await bpcells.open(dir);
    try {
      const files = m.stats.files;
      const before = { index: files.index_data.requests, val: files.val_data.requests, indexBytes: files.index_data.bytes };
      const view = await m.readView();
      view.release();
      expect(files.index_data.requests - before.index).toBe(1);
      expect(files.val_data.requests - before.val).toBe(1);
      expect(files.index_data.bytes - before.indexBytes).toBe(payload('index_data'));
      const mark = m.stats.requests;
      await threeWays(m, 100, 200);
      await threeWays(m, 2998, 3000);
      expect(m.stats.requests).toBe(mark); // decoded where the words lie
    } finally {
      m.close();
    }
  });

  test('the same values as a fresh read through the asynchronous path; close() drops the kept words', async () => {
    const local = await bpcells.open(dir);
    const object = await bpcells.open(objectSource(dir));
    try {
      const [x, y] = [await local.read(), await object.read()];
      for (const k of ['index', 'val']) expect(sameBytes(u8(x[k]), u8(y[k]))).toBe(true);
      expect(Array.from(x.idxptr)).toEqual(Array.from(y.idxptr));
      local.close(); // a directory matrix reopens its files if read again
      const requests = local.stats.files.index_data.requests;
      expectSlice(await local.read(10, 20), want(10, 20));
      expect(local.stats.files.index_data.requests).toBe(requests + 1);
    } finally {
      local.close();
      object.close();
    }
  });

  test('a range larger than the kept bound is read block by block, each time, and memory does not grow', async () => {
    const m = await bpcells.open(dir, { cacheBytes: SMALL_CACHE });
    try {
      const files = m.stats.files;
      const before = files.index_data.requests;
      await m.read();
      const perRead = files.index_data.requests - before;
      expect(perRead).toBeGreaterThan(1); // one read per block
      expect(files.index_data.bytes).toBe(payload('index_data') + 8); // + the header probed at open
      const heap = getModule('bpcells').HEAPU8.length;
      for (let i = 0; i < 3; i++) expectSlice(await m.read(), want(0, 3000));
      expect(files.index_data.requests - before).toBe(4 * perRead);
      expect(getModule('bpcells').HEAPU8.length).toBe(heap);
    } finally {
      m.close();
    }
  });

  test('repeated open, whole read, close cycles do not grow wasm memory', async () => {
    const cycle = async () => {
      const m = await bpcells.open(dir);
      (await m.readView()).release();
      await m.read(5, 6);
      m.close();
    };
    await cycle();
    const heap = getModule('bpcells').HEAPU8.length;
    for (let i = 0; i < 4; i++) await cycle();
    expect(getModule('bpcells').HEAPU8.length).toBe(heap);
  });
});

describe('a chunk damaged late in the index stream', () => {
  const DAMAGED = 25000; // chunk number: well past the first piece and the first block
  let tmp;
  let patched;
  beforeAll(() => {
    // index_data with every word of chunk DAMAGED set to ones: its d1z values overflow the row count.
    const data = new Uint8Array(readFileSync(path.join(dir, 'index_data')));
    const idx = new Uint32Array(new Uint8Array(readFileSync(path.join(dir, 'index_idx'))).buffer, 8);
    new Uint32Array(data.buffer, 8).fill(0xffffffff, idx[DAMAGED], idx[DAMAGED + 1]);
    patched = data;
    // A damaged copy on disk (outside the project) for the local path.
    tmp = mkdtempSync(path.join(tmpdir(), 'numdecode-bpcells-'));
    for (const f of readdirSync(dir)) writeFileSync(path.join(tmp, f), f === 'index_data' ? data : readFileSync(path.join(dir, f)));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  const position = DAMAGED * CHUNK; // the first damaged value's position in the stream
  const reads = { fresh: (m) => m.read(), into: (m) => m.read(0, m.major, { into: { index: new Uint32Array(m.nnz), val: new Uint32Array(m.nnz) } }), view: (m) => m.readView() };

  test.each([
    ['local directory', () => bpcells.open(tmp)],
    ['local directory, small cacheBytes', () => bpcells.open(tmp, { cacheBytes: SMALL_CACHE })],
    ['{size, read} object', () => bpcells.open(objectSource(dir, { index_data: patched }))],
  ])('%s: a BpcellsError naming index_data and the position; no view left; columns before it read fine', async (_name, openIt) => {
    expect(position).toBeGreaterThan(BLOCK_VALUES + PIECE_VALUES);
    const m = await openIt();
    try {
      const live = bpcells.viewStats();
      let heap = 0;
      // Twice: the first round may grow wasm memory once; failed reads free what they took.
      for (let round = 0; round < 2; round++) {
        if (round === 1) heap = getModule('bpcells').HEAPU8.length;
        for (const [how, read] of Object.entries(reads)) {
          const err = await read(m).catch((e) => e);
          expect([how, err]).toEqual([how, expect.any(BpcellsError)]);
          expect(err.code).toBe(CODES.BAD_DATA);
          expect(err.file).toBe('index_data');
          expect(err.message).toMatch(new RegExp(`^bpcells: index: value \\d+ at position ${position + 127} is out of range \\(must be < 20000\\)`));
        }
      }
      expect(bpcells.viewStats()).toEqual(live);
      expect(getModule('bpcells').HEAPU8.length).toBe(heap);
      // The columns whose entries end before the damaged chunk decode exactly.
      let b = 0;
      while (exp.idxptr[b + 1] <= position) b++;
      await threeWays(m, 0, b);
      await threeWays(m, 2000, b);
    } finally {
      m.close();
    }
  });
});

test('a local data file cut short after open: the read that needs it fails naming it, no view left', async () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'numdecode-bpcells-'));
  try {
    for (const f of readdirSync(dir)) writeFileSync(path.join(tmp, f), readFileSync(path.join(dir, f)));
    const m = await bpcells.open(tmp);
    const data = readFileSync(path.join(dir, 'val_data'));
    writeFileSync(path.join(tmp, 'val_data'), data.subarray(0, data.length >> 1));
    const live = bpcells.viewStats();
    for (const read of [() => m.read(), () => m.readView()]) {
      const err = await read().catch((e) => e);
      expect(err).toBeInstanceOf(BpcellsError);
      expect(err.file).toBe('val_data');
      expect(err.message).toMatch(/^bpcells: val_data: .*truncated/);
    }
    expect(bpcells.viewStats()).toEqual(live);
    expectSlice(await m.read(0, 10), want(0, 10)); // its first half is still there
    m.close();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

describe('HDF5: the packed corpus matrix through the same paths', () => {
  const h5Dir = path.join(corpusRoot, 'bpcells-hdf5', 'large_packed_uint_col_20000x2000');
  test.each([
    ['default', {}],
    ['small cacheBytes (blocks)', { cacheBytes: SMALL_CACHE }],
  ])('%s', async (_name, options) => {
    const e = JSON.parse(readFileSync(path.join(h5Dir, 'expected.json'), 'utf8')).stored;
    const index = new Uint8Array(readFileSync(path.join(h5Dir, e.index_file)));
    const val = new Uint8Array(readFileSync(path.join(h5Dir, e.val_file)));
    const idxptr = Float64Array.from(new BigUint64Array(new Uint8Array(readFileSync(path.join(h5Dir, e.idxptr_file))).buffer), Number);
    const m = await bpcells.open(path.join(h5Dir, 'matrix.h5'), options);
    try {
      for (const [a, b] of [
        [0, m.major],
        [3, 1999],
      ]) {
        const [p0, p1] = [idxptr[a], idxptr[b]];
        const w = { idxptr: Array.from(idxptr.subarray(a, b + 1), (x) => x - p0), index: index.subarray(4 * p0, 4 * p1), val: val.subarray(4 * p0, 4 * p1) };
        expectSlice(await m.read(a, b), w);
        const view = await m.readView(a, b);
        expectSlice(view, w);
        view.release();
      }
    } finally {
      m.close();
    }
  });
});

describe('I/O layer: readSync(start, end, target)', () => {
  const file = path.join(dir, 'val_idx');
  const bytes = new Uint8Array(readFileSync(file));

  // A buffer's bytes are in memory already (no read to count).
  test.each([
    ['a local file', () => openFile(file), 1],
    ['a buffer', () => openFile(bytes), 0],
  ])('%s: the bytes land in target; a wrong target is a TypeError, a range past the end an IoError', (_name, openIt, requests) => {
    const f = openIt();
    try {
      const target = new Uint8Array(100);
      expect(f.readSync(8, 108, target)).toBe(target);
      expect(sameBytes(target, bytes.subarray(8, 108))).toBe(true);
      expect(f.stats.requests).toBe(requests);
      expect(f.stats.bytes).toBe(100 * requests);
      expect(() => f.readSync(8, 108, new Uint8Array(99))).toThrow(TypeError);
      const err = (() => {
        try {
          f.readSync(bytes.length - 4, bytes.length + 4, new Uint8Array(8));
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(err).toBeInstanceOf(IoError);
      expect(err.message).toMatch(/truncated/);
    } finally {
      f.close();
    }
  });
});
