// The modules grow up to 4 GiB, and an export's i32 answer past 2 GiB reads as a negative number in
// JS. With each module's low 2 GiB taken (4 MiB blocks, malloc'd and held: reserved, barely
// touched), every decode's inputs, scratch and outputs land past 2 GiB: the values must still be
// exact (before js/wasm/heap.js's malloc() made addresses unsigned, each failed with a RangeError
// "Start offset -2142… is outside the bounds of the buffer"). The modules are replaced afterwards.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import path from 'node:path';
import * as zarr from 'zarrita';
import { init, pco, alp, releaseMemory } from '../../../js/index.js';
import * as bpcells from '../../../js/bpcells/index.js';
import { readView as parquetReadView, read as parquetRead } from '../../../js/parquet.js';
import { LocalStore, read as zarrRead, readView as zarrReadView } from '../../../js/zarr.js';
import { getModule } from '../../../js/wasm/load.js';
import { corpusRoot, pcoCases, pcoDir, readBytes, bytesOf, expectSameBytes } from '../helpers/corpus.js';

const held = { pco: [], alp: [], bpcells: [] };

// Takes the module's memory below 2 GiB, so that the next allocations lie past it.
function fillLow(format) {
  const mod = getModule(format);
  for (;;) {
    const p = mod._malloc(4 << 20);
    if (p === 0) throw new Error(`${format}: no memory to reach 2 GiB`);
    held[format].push(p);
    if (p < 0) break; // past 2 GiB
  }
  // the holes left below, block size by block size
  for (const size of [64 << 10, 4 << 10, 256, 16]) {
    for (let n = 0; n < 100000; n++) {
      const p = mod._malloc(size);
      held[format].push(p);
      if (p <= 0) break;
    }
  }
}

const parquetFile = path.join(corpusRoot, 'parquet-alp', 'alp_arade.parquet');
const bpcellsDir = path.join(corpusRoot, 'bpcells', 'packed_uint_large_20000x3000', 'matrix');
const openT2m = () => zarr.open(zarr.root(new LocalStore(path.join(corpusRoot, 'zarr-pcodec', 'stores', 'era5_like_v3.zarr'))).resolve('t2m'), { kind: 'array' });
let before; // what the containers read while every address was below 2 GiB

beforeAll(async () => {
  await init({ formats: ['pco', 'alp', 'bpcells'] });
  const m = await bpcells.open(bpcellsDir);
  before = { parquet: await parquetRead(parquetFile), t2m: await zarrRead(await openT2m()), matrix: await m.read(100, 400) };
  m.close();
  fillLow('pco');
  fillLow('alp');
  fillLow('bpcells');
}, 60000);

afterAll(async () => {
  for (const format of ['pco', 'alp', 'bpcells']) for (const p of held[format]) getModule(format)._free(p);
  await releaseMemory({ formats: ['pco', 'alp', 'bpcells'] });
});

test('the next allocation of each module lies past 2 GiB', () => {
  for (const format of ['pco', 'alp', 'bpcells']) {
    const mod = getModule(format);
    const p = mod._malloc(64);
    expect(p).toBeLessThan(0); // as JS sees the i32
    mod._free(p);
  }
});

test('Pco: decode and decodeView of the standalone corpus files, exact', () => {
  for (const c of pcoCases().filter((x) => x.format === 'standalone' && x.expected && x.n >= 1000)) {
    const want = readBytes(pcoDir, c.expected);
    const bytes = readBytes(pcoDir, c.file);
    expectSameBytes(bytesOf(pco.decode(bytes)), want, `${c.file} decode`);
    const view = pco.decodeView(bytes);
    expectSameBytes(bytesOf(view.values), want, `${c.file} decodeView`);
    view.release();
  }
});

test('ALP: a page decoded fresh and as a view, exact', () => {
  const values = Float64Array.from({ length: 5000 }, (_, i) => Math.round(Math.sin(i) * 1e5) / 100);
  const page = alp.encode(values);
  expect(Array.from(alp.decode(page, 'f64'))).toEqual(Array.from(values));
  const view = alp.decodeView(page, 'f64');
  expect(Array.from(view.values)).toEqual(Array.from(values));
  view.release();
});

test('Parquet read and readView of a corpus file, and a Zarr array read and readView: what they read below 2 GiB', async () => {
  const fresh = await parquetRead(parquetFile);
  const view = await parquetReadView(parquetFile);
  for (const [name, col] of Object.entries(before.parquet.columns)) {
    expectSameBytes(bytesOf(fresh.columns[name].values), bytesOf(col.values), `${name} read`);
    expectSameBytes(bytesOf(view.columns[name].values), bytesOf(col.values), `${name} readView`);
  }
  view.release();
  const arr = await openT2m();
  expectSameBytes(bytesOf((await zarrRead(arr)).data), bytesOf(before.t2m.data), 't2m read');
  const zview = await zarrReadView(arr);
  expectSameBytes(bytesOf(zview.data), bytesOf(before.t2m.data), 't2m readView');
  zview.release();
});

test('BPCells: a slice of a corpus matrix, fresh and as a view: what it read below 2 GiB', async () => {
  const m = await bpcells.open(bpcellsDir);
  try {
    const fresh = await m.read(100, 400);
    const view = await m.readView(100, 400);
    for (const key of ['idxptr', 'index', 'val']) {
      expectSameBytes(bytesOf(fresh[key]), bytesOf(before.matrix[key]), `${key} read`);
      expectSameBytes(bytesOf(view[key]), bytesOf(before.matrix[key]), `${key} readView`);
    }
    view.release();
  } finally {
    m.close();
  }
});
