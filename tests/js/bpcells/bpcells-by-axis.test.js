// Matrix.readColumns / readRows (whatever the storage order: along it a read(), across it a full
// scan), their view forms, blocks() streaming, and toDense's {data, shape, stride} and
// maxOutputBytes: bit-exact against the corpus' expected arrays, transposed by this file for the
// direction across the storage order.
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as bpcells from '../../../js/bpcells/index.js';
import { CODES } from '../../../js/errors.js';
import { init } from '../../../js/index.js';
import { LARGE, cases, corpusRoot, expected, sameBytes, setDir, slicePart, u8 } from '../helpers/bpcells-corpus.js';

const ARRAY = { u32: Uint32Array, f32: Float32Array, f64: Float64Array };
const DTYPE = { uint32: 'u32', float32: 'f32', float64: 'f64' };

beforeAll(() => init({ formats: ['bpcells'] }));

// The corpus arrays {idxptr, index (bytes), val (bytes)} of the other compressed layout (CSR from
// CSC and back), built entry by entry; within each new position the old positions ascend.
function transposed(exp, minor, valBytes) {
  const index = new Uint32Array(exp.index.buffer, exp.index.byteOffset, exp.index.byteLength / 4);
  const lists = Array.from({ length: minor }, () => []);
  for (let i = 0; i + 1 < exp.idxptr.length; i++) {
    for (let p = exp.idxptr[i]; p < exp.idxptr[i + 1]; p++) lists[index[p]].push([i, p]);
  }
  const idxptr = new Float64Array(minor + 1);
  const outIndex = new Uint32Array(index.length);
  const outVal = new Uint8Array(exp.val.length);
  let q = 0;
  lists.forEach((list, j) => {
    for (const [i, p] of list) {
      outIndex[q] = i;
      outVal.set(exp.val.subarray(p * valBytes, (p + 1) * valBytes), q * valBytes);
      q++;
    }
    idxptr[j + 1] = q;
  });
  return { idxptr, index: u8(outIndex), val: outVal };
}

function expectSame(got, want, Type) {
  expect(got.idxptr).toBeInstanceOf(Float64Array);
  expect(Array.from(got.idxptr)).toEqual(Array.from(want.idxptr));
  expect(got.index).toBeInstanceOf(Uint32Array);
  expect(got.val).toBeInstanceOf(Type);
  expect(sameBytes(u8(got.index), want.index)).toBe(true);
  expect(sameBytes(u8(got.val), want.val)).toBe(true); // bit-exact, also -0 and NaN payloads
}

// Corpus case `name` opened for the enclosing describe block: {c, m, exp} (m and exp once opened).
function openedCase(name) {
  const state = { c: cases.find((x) => x.name === name) };
  beforeAll(async () => {
    state.m = await bpcells.open(path.join(setDir, state.c.dir));
    state.exp = expected(state.c);
  });
  afterAll(() => state.m.close());
  return state;
}

describe.each(cases.filter((c) => c.name !== LARGE))('$name', (c) => {
  let m;
  let csc;
  let csr;
  let Type;
  beforeAll(async () => {
    m = await bpcells.open(path.join(setDir, c.dir));
    Type = ARRAY[DTYPE[c.dtype]];
    const exp = expected(c);
    const [nrow, ncol] = c.shape;
    const el = Type.BYTES_PER_ELEMENT;
    if (c.storage_order === 'col') [csc, csr] = [exp, transposed(exp, nrow, el)];
    else [csr, csc] = [exp, transposed(exp, ncol, el)];
  });
  afterAll(() => m.close());

  test('readColumns and readRows, whole and in part, fresh, into and as views', async () => {
    const [nrow, ncol] = c.shape;
    const el = Type.BYTES_PER_ELEMENT;
    expectSame(await m.readColumns(), csc, Type);
    expectSame(await m.readRows(), csr, Type);
    const [c0, c1] = [Math.floor(ncol / 3), ncol - Math.floor(ncol / 4)];
    const [r0, r1] = [Math.floor(nrow / 4), nrow - Math.floor(nrow / 3)];
    expectSame(await m.readColumns(c0, c1), slicePart(csc, c0, c1, el), Type);
    expectSame(await m.readRows(r0, r1), slicePart(csr, r0, r1, el), Type);
    expectSame(await m.readColumns(c1, c1), slicePart(csc, c1, c1, el), Type);
    // into: the caller's arrays, one element larger than needed
    const want = slicePart(csr, r0, r1, el);
    const n = want.index.length / 4;
    const into = { idxptr: new Float64Array(r1 - r0 + 2), index: new Uint32Array(n + 1), val: new Type(n + 1) };
    const filled = await m.readRows(r0, r1, { into });
    expect(filled.index.buffer).toBe(into.index.buffer);
    expect(filled.val.buffer).toBe(into.val.buffer);
    expectSame(filled, want, Type);
    // views
    const view = await m.readColumnsView(c0, c1);
    expectSame(view, slicePart(csc, c0, c1, el), Type);
    expect(view.length).toBe(view.nnz);
    view.release();
    const rows = await m.readRowsView();
    expectSame(rows, csr, Type);
    rows.release();
  });

  test('blocks() concatenated equal read()', async () => {
    const whole = await m.read();
    const pieces = [];
    for await (const block of m.blocks({ size: 7 })) pieces.push(block);
    expect(pieces.map((b) => [b.start, b.end])).toEqual(
      Array.from({ length: Math.ceil(m.major / 7) }, (_, i) => [7 * i, Math.min(m.major, 7 * i + 7)]),
    );
    const index = new Uint32Array(whole.index.length);
    const val = new Type(whole.val.length);
    const idxptr = [0];
    for (const b of pieces) {
      index.set(b.index, idxptr.at(-1));
      val.set(b.val, idxptr.at(-1));
      const base = idxptr.at(-1);
      for (let i = 1; i < b.idxptr.length; i++) idxptr.push(base + b.idxptr[i]);
    }
    expect(idxptr).toEqual(Array.from(whole.idxptr));
    expect(sameBytes(u8(index), u8(whole.index))).toBe(true);
    expect(sameBytes(u8(val), u8(whole.val))).toBe(true);
  });
});

describe('the scan across the storage order', () => {
  const opened = openedCase('packed_double_row_names');

  test('onProgress counts rows scanned up to the total; along the storage order it is called once', async () => {
    const { m } = opened;
    const calls = [];
    await m.readColumns(3, 9, { onProgress: (p) => calls.push(p) });
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.at(-1)).toEqual({ done: 30, total: 30, unit: 'rows' });
    const along = [];
    await m.readRows(3, 9, { onProgress: (p) => along.push(p) });
    expect(along).toEqual([{ done: 6, total: 6, unit: 'rows' }]);
  });

  test('an aborted signal rejects with ERR_ABORTED; bad arguments are TypeError / RangeError', async () => {
    const { m } = opened;
    const err = await m.readColumns(0, 5, { signal: AbortSignal.abort() }).catch((e) => e);
    expect(err.code).toBe(CODES.ABORTED);
    await expect(m.readColumns(0, 46)).rejects.toThrow(RangeError);
    await expect(m.readRows(5, 4)).rejects.toThrow(/readRows\(5, 4\): range must satisfy 0 <= start <= end <= 30/);
    await expect(m.readColumns(0, 1, { nope: 1 })).rejects.toThrow(TypeError);
    await expect(m.readColumnsView(0, 1, { into: {} })).rejects.toThrow(/unknown option "into"/);
    await expect(m.readColumns(0, 1, { into: { val: new Float32Array(9) } })).rejects.toThrow(/into.val must be a Float64Array/);
  });
});

describe('the large matrix (3.8 M entries, col-major)', () => {
  const opened = openedCase(LARGE);

  test('readRows scans every column once, in blocks, and equals the transposed corpus arrays', async () => {
    const { m, exp } = opened;
    const calls = [];
    const rows = await m.readRows(100, 350, { onProgress: (p) => calls.push(p) });
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.at(-1)).toEqual({ done: 3000, total: 3000, unit: 'columns' });
    const csr = transposed(exp, 20000, 4);
    expectSame(rows, slicePart(csr, 100, 350, 4), Uint32Array);
  });

  test('blocks() by default: a few blocks of about 2^20 entries, together the corpus arrays', async () => {
    const { m, exp } = opened;
    let at = 0;
    let blocks = 0;
    for await (const b of m.blocks()) {
      expect(b.start).toBe(at);
      expectSame(b, slicePart(exp, b.start, b.end, 4), Uint32Array);
      at = b.end;
      blocks++;
    }
    expect(at).toBe(3000);
    expect(blocks).toBeGreaterThan(1);
    expect(blocks).toBeLessThan(10);
  });
});

describe('HDF5: readColumns of a row-major matrix', () => {
  const dir = path.join(corpusRoot, 'bpcells-hdf5', 'unicode_names_packed_float_row');
  test('equals the transposed expected arrays', async () => {
    const e = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8'));
    const s = e.stored;
    const exp = {
      idxptr: Float64Array.from(s.idxptr),
      index: u8(Uint32Array.from(s.index)),
      val: u8(Float32Array.from(s.val)),
    };
    const m = await bpcells.open(path.join(dir, 'matrix.h5'), { group: e.group ?? 'mat' });
    try {
      expect(m.storageOrder).toBe('row');
      expectSame(await m.readColumns(), transposed(exp, m.shape[1], 4), Float32Array);
      expectSame(await m.readRows(1, 3), slicePart(exp, 1, 3, 4), Float32Array);
    } finally {
      m.close();
    }
  });
});

describe('toDense', () => {
  const opened = openedCase('packed_float_col_names');

  test('{data, shape, stride}, C order, equal to the sparse entries', async () => {
    const { m } = opened;
    const { data, shape, stride } = await m.toDense(2, 6);
    expect(shape).toEqual([60, 4]);
    expect(stride).toEqual([4, 1]);
    const { idxptr, index, val } = await m.read(2, 6);
    const want = new Float32Array(240);
    for (let j = 0; j < 4; j++) for (let p = idxptr[j]; p < idxptr[j + 1]; p++) want[index[p] * 4 + j] = val[p];
    expect(sameBytes(u8(data), u8(want))).toBe(true);
  });

  test('maxOutputBytes caps the output; maxCells still works, in cells, and warns once', async () => {
    const { m } = opened;
    const err = await m.toDense(0, 4, { maxOutputBytes: 959 }).catch((e) => e);
    expect(err.code).toBe(CODES.OUTPUT_LIMIT);
    expect(err.message).toMatch(/240 values \(960 bytes\) exceed maxOutputBytes=959/);
    expect((await m.toDense(0, 4, { maxOutputBytes: 960 })).data.length).toBe(240);
    const warnings = [];
    const spy = jest.spyOn(process, 'emitWarning').mockImplementation((message) => warnings.push(message));
    try {
      const tooMany = await m.toDense(0, 4, { maxCells: 239 }).catch((e) => e);
      expect(tooMany.message).toMatch(/exceed maxOutputBytes=956/);
      expect((await m.toDense(0, 4, { maxCells: 240 })).shape).toEqual([60, 4]);
    } finally {
      spy.mockRestore();
    }
    expect(warnings).toEqual(['numdecode: bpcells toDense option maxCells is deprecated; use maxOutputBytes']);
  });
});

describe('a shape file claiming more rows or columns than memory holds', () => {
  // A copy of a corpus matrix whose 16-byte shape file (UINT32v1 + nrow, ncol) claims 4e9 of the axis
  // the scan counts along: the read is named (ERR_OUTPUT_LIMIT, the call, the bytes), not V8's bare RangeError.
  test.each([
    ['packed_uint_row_nonames', 'readColumns', (shape) => [shape[0], 4e9]],
    ['packed_uint_col_names', 'readRows', (shape) => [4e9, shape[1]]],
  ])('%s: %s()', async (name, call, claim) => {
    const { cpSync, mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
    const os = await import('node:os');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'numdecode-bpcells-shape-'));
    try {
      cpSync(path.join(setDir, name, 'matrix'), dir, { recursive: true });
      const before = await bpcells.open(dir);
      const shape = claim(before.shape);
      before.close?.();
      writeFileSync(path.join(dir, 'shape'), Buffer.concat([Buffer.from('UINT32v1'), Buffer.from(Uint32Array.from(shape).buffer)]));
      const m = await bpcells.open(dir);
      const err = await m[call]().catch((e) => e);
      expect(err).toBeInstanceOf(bpcells.BpcellsError);
      expect(err.code).toBe(CODES.OUTPUT_LIMIT);
      expect(err.message).toMatch(new RegExp(`${call}\\(0, 4000000000\\): out of memory for 32000000008 bytes of output`));
      m.close?.();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
