// Per-call control of a matrix's reads: AbortSignal on read/toDense/rowNames/colNames, argument
// errors as TypeError/RangeError, unknown option names refused, and inspect() as plain data.
import { beforeAll, expect, test } from '@jest/globals';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { BpcellsError, CODES, bpcells, init } from '../../../js/index.js';
import { cases, expected, setDir, u8, sameBytes } from '../helpers/bpcells-corpus.js';
import { rejection } from '../helpers/rejection.js';

const c = cases.find((x) => x.name === 'packed_uint_col_names');
let m;

beforeAll(async () => {
  await init();
  m = await bpcells.open(path.join(setDir, c.dir));
});

test('inspect() gives the header facts as plain data', () => {
  const info = m.inspect();
  expect(info).toEqual({
    version: c.version,
    format: 2,
    packed: true,
    dtype: 'u32',
    shape: c.shape,
    storageOrder: c.storage_order,
    nnz: c.nnz,
  });
  expect(JSON.parse(JSON.stringify(info))).toEqual(info);
});

test('a fired signal rejects every read with ERR_ABORTED; without it the same calls read exactly', async () => {
  const signal = AbortSignal.abort();
  for (const call of [() => m.read(0, 5, { signal }), () => m.toDense(0, 2, { signal }), () => m.rowNames({ signal }), () => m.colNames({ signal })]) {
    const err = await rejection(call());
    expect(err).toBeInstanceOf(BpcellsError);
    expect(err.code).toBe(CODES.ABORTED);
  }
  const exp = expected(c);
  const r = await m.read(0, m.major, { signal: new AbortController().signal });
  expect(sameBytes(u8(r.index), exp.index)).toBe(true);
  expect(await m.rowNames()).toEqual(exp.rowNames);
});

test('aborting while a read is under way rejects it at once', async () => {
  const underWay = []; // the source's reads, awaited before the test ends (they outlive the abort)
  let answered = 0;
  const slow = {
    size: async (name) => statSync(path.join(setDir, c.dir, name)).size,
    read: (name, start, end) => {
      const p = new Promise((resolve) => setTimeout(resolve, 200)).then(() => {
        answered++;
        return new Uint8Array(readFileSync(path.join(setDir, c.dir, name))).subarray(start, end);
      });
      underWay.push(p);
      return p;
    },
  };
  const lazy = await bpcells.open(slow, { prefetchBytes: 0 });
  const controller = new AbortController();
  const pending = lazy.read(3, 9, { signal: controller.signal });
  const answeredBefore = answered; // open() already read through the source
  setTimeout(() => controller.abort(), 20);
  const err = await rejection(pending);
  expect(err.code).toBe(CODES.ABORTED);
  expect(answered).toBe(answeredBefore); // rejected before the source answered the read
  await Promise.allSettled(underWay);
  expect(answered).toBeGreaterThan(answeredBefore); // the read itself went on in the background
});

test('argument mistakes: RangeError for ranges, TypeError for unknown options; limits are ERR_OUTPUT_LIMIT', async () => {
  await expect(m.read(3, 2)).rejects.toThrow(RangeError);
  await expect(m.read(0, m.major + 1)).rejects.toThrow(RangeError);
  await expect(m.read(0, 1, { singal: null })).rejects.toThrow(/unknown option "singal"/);
  await expect(m.toDense(0, 1, { maxcells: 5 })).rejects.toThrow(TypeError);
  // open() and list() too: a misspelt option is refused before anything is read, not ignored.
  const dir = path.join(setDir, c.dir);
  const typo = await rejection(bpcells.open(dir, { retires: 5 }));
  expect([typo.name, typo.message]).toEqual(['TypeError', expect.stringMatching(/^bpcells\.open: unknown option "retires" \(known: group, prefetchBytes, hdf5TimeLimit, retries, /)]);
  await expect(bpcells.list(dir, { groop: 'mat' })).rejects.toThrow(/^bpcells\.list: unknown option "groop"/);
  await expect(bpcells.open(dir, { constructor: 1 })).rejects.toThrow(/unknown option "constructor"/); // not an inherited name
  // The one-shot calls check too, also when the matrix is open already (their cache skips open()).
  expect((await bpcells.readSlice(dir, {}, 0, 1)).shape).toEqual(m.shape);
  await expect(bpcells.readSlice(dir, { retires: 5 }, 0, 1)).rejects.toThrow(/^bpcells readSlice: unknown option "retires"/);
  await expect(bpcells.readNames(dir, { retires: 5 })).rejects.toThrow(/^bpcells readNames: unknown option "retires"/);
  expect((await bpcells.open(dir, { retries: 1, prefetchBytes: 0, maxReadBytes: 1e9 })).shape).toEqual(m.shape);
  const err = await rejection(m.toDense(0, m.major, { maxOutputBytes: 10 }));
  expect(err).toBeInstanceOf(BpcellsError);
  expect(err.code).toBe(CODES.OUTPUT_LIMIT);
});

test('close() and Symbol.dispose release a directory matrix; a later read reopens its files', async () => {
  const opened = await bpcells.open(path.join(setDir, c.dir), { prefetchBytes: 0 });
  expect(opened[Symbol.dispose]).toBeInstanceOf(Function);
  const before = await opened.read(0, opened.major);
  opened[Symbol.dispose]();
  opened.close(); // twice is fine
  const after = await opened.read(0, opened.major);
  expect(sameBytes(u8(after.index), u8(before.index))).toBe(true);
  expect(sameBytes(u8(after.index), expected(c).index)).toBe(true);
});
