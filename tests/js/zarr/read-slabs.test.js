// numdecode/zarr read() from a local folder (LocalStore lends the chunks in order), where chunks
// narrower than the output are assembled into slabs in wasm memory (js/zarr/slab.js): whole arrays
// and selections bit-identical to zarrita.get, missing chunks filled, damaged chunks named; and
// the slabs are used exactly where they should be.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import FileSystemStore from '@zarrita/storage/fs';
import { cpSync, mkdtempSync, rmSync, truncateSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as zarr from 'zarrita';
import { init } from '../../../js/index.js';
import { LocalStore, read, registerPcodec } from '../../../js/zarr.js';
import { arrayLayout } from '../../../js/zarr/layout.js';
import { outputGeometry } from '../../../js/zarr/place.js';
import { chunkParts, dimensionParts, normalizeSelection } from '../../../js/zarr/plan.js';
import { MAX_SLAB_BYTES, chunkRows, shardSlabPlan, slabPlan, slabStrides, tiledSlab } from '../../../js/zarr/slab.js';
import { createWorkerPool } from '../../../js/worker/index.js';
import { corpusRoot } from '../helpers/corpus.js';
import { expectSameAsZarrita } from '../helpers/zarr-expect.js';

const storesDir = path.join(corpusRoot, 'zarr-pcodec', 'stores');
const local = (store, name) => zarr.open(zarr.root(new LocalStore(path.join(storesDir, store))).resolve(name), { kind: 'array' });
const reference = (store, name) => zarr.open(zarr.root(new FileSystemStore(path.join(storesDir, store))).resolve(name), { kind: 'array' });

let pool;

beforeAll(async () => {
  registerPcodec(zarr.registry);
  await init();
  pool = await createWorkerPool({ size: 2 });
});

afterAll(async () => {
  await pool?.terminate();
});

// Whether a read of `selection` would assemble slabs (what js/zarr/read.js asks of slabPlan).
async function usesSlabs(arr, selection) {
  const layout = await arrayLayout(arr);
  const dims = normalizeSelection(selection, layout.shape);
  const kept = dims.flatMap((d, axis) => (d.index === undefined ? [axis] : []));
  const stored = layout.order.filter((axis) => kept.includes(axis));
  const shape = stored.map((axis) => dims[axis].count);
  return slabPlan(layout, dimensionParts(dims, layout.chunkShape), outputGeometry(shape), stored, true) !== null;
}

describe('slabs from a local folder', () => {
  const cases = [
    ['era5_like_v3.zarr', 't2m'], // a missing chunk (NaN fill)
    ['era5_like_v3.zarr', 'tp'], // a chunk not written (0 fill)
    ['era5_like_v2.zarr', 't2m'], // "." separator, missing chunk
    ['era5_like_v3.zarr', 'time'], // int64, one axis
    ['dtypes_v3.zarr', 'uint64'],
    ['dtypes_v3.zarr', 'int8'],
  ];
  const selectionsFor = (shape) => [
    null,
    shape.map((n) => zarr.slice(1, n - 1, 3)), // steps across chunk edges
    shape.map((n, d) => (d === 0 ? n - 1 : null)), // an integer index on the outer axis
    shape.map((n, d) => (d === shape.length - 1 ? 7 : null)), // an integer index on the inner axis
    shape.map((n, d) => (d === shape.length - 1 ? zarr.slice(5, null, 7) : zarr.slice(Math.floor(n / 3), n))), // edge chunks
    shape.map((n) => zarr.slice(n - 3, null)), // the corner chunk only
  ];
  test.each(cases)('%s/%s: whole and selections bit-identical to zarrita.get, fresh and into', async (store, name) => {
    const arr = await local(store, name);
    const ref = await reference(store, name);
    for (const selection of selectionsFor(arr.shape)) {
      const want = await zarr.get(ref, selection);
      const what = `${store}/${name} ${JSON.stringify(selection)}`;
      if (typeof want !== 'object') continue; // a single value: shape [], no slab
      expectSameAsZarrita(await read(arr, { selection }), want, what);
      const into = new want.data.constructor(want.data.length).fill(want.data.constructor === BigInt64Array || want.data.constructor === BigUint64Array ? 7n : 7);
      expectSameAsZarrita(await read(arr, { selection, into }), want, `${what} into`); // missing chunks overwrite what was there
      // Workers reading the chunk files themselves, each given whole slabs, into shared memory.
      expectSameAsZarrita(await read(arr, { selection, pool }), want, `${what} pool`);
      const shared = new want.data.constructor(new SharedArrayBuffer(want.data.byteLength)).fill(into[0]);
      expectSameAsZarrita(await read(arr, { selection, pool, into: shared }), want, `${what} pool into`);
    }
  });

  test('used where chunks are narrower than the output, not where they are whole rows, F order, shards or a store that does not lend', async () => {
    const t2m = await local('era5_like_v3.zarr', 't2m');
    expect(await usesSlabs(t2m, null)).toBe(true);
    expect(await usesSlabs(t2m, [zarr.slice(0, 4), zarr.slice(80, 100), zarr.slice(150, 200)])).toBe(true);
    // One chunk across the last axis: each box lands as rows of the output already.
    expect(await usesSlabs(t2m, [null, zarr.slice(0, 5), zarr.slice(0, 5)])).toBe(false);
    expect(await usesSlabs(t2m, [zarr.slice(0, 4), zarr.slice(10, 20), zarr.slice(0, 100)])).toBe(false);
    expect(await usesSlabs(await local('era5_like_v2.zarr', 'tp'), null)).toBe(false); // order F
    // tp's chunks are 12 x 64 x 128: a row of them, 12 x 64 x 360 f32, is under MAX_SLAB_BYTES; a
    // row of a 1-D array is the whole output, and its chunks land in one piece each anyway.
    const tp = await local('era5_like_v3.zarr', 'tp');
    expect(12 * 64 * 360 * 4).toBeLessThan(MAX_SLAB_BYTES);
    expect(await usesSlabs(tp, null)).toBe(true);
    expect(await usesSlabs(await local('era5_like_v3.zarr', 'time'), null)).toBe(false);
    expect(await usesSlabs(await local('sharded_v3.zarr', 'counts'), null)).toBe(false);
    const layout = await arrayLayout(t2m);
    const dims = normalizeSelection(null, layout.shape);
    expect(slabPlan(layout, dimensionParts(dims, layout.chunkShape), outputGeometry(layout.shape), [0, 1, 2], false)).toBeNull();
  });

  test('a damaged chunk in a slab names its key and the array', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'numdecode-zarr-slab-'));
    try {
      cpSync(path.join(storesDir, 'era5_like_v3.zarr'), dir, { recursive: true });
      truncateSync(path.join(dir, 't2m/c/3/0/1'), 200);
      const arr = await zarr.open(zarr.root(new LocalStore(dir)).resolve('t2m'), { kind: 'array' });
      expect(await usesSlabs(arr, null)).toBe(true);
      await expect(read(arr)).rejects.toMatchObject({ code: 'ERR_BAD_DATA', file: '/t2m/c/3/0/1', array: '/t2m' });
      // The next read starts its slabs afresh.
      const good = await local('era5_like_v3.zarr', 't2m');
      expectSameAsZarrita(await read(good), await zarr.get(await reference('era5_like_v3.zarr', 't2m')), 'after a failed read');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a shard\'s chunks in one slab (a range read together from a local folder)', () => {
  const selections = (shape) => [
    null,
    shape.map((n) => zarr.slice(1, n - 1, 3)),
    shape.map((n, d) => (d === 0 ? 300 : null)),
    shape.map((n, d) => (d === 1 ? zarr.slice(100, 600) : zarr.slice(Math.floor(n / 3), n))),
    shape.map((n) => zarr.slice(n - 3, null)),
  ];

  test.each([['counts'], ['labels']])('sharded_v3.zarr/%s: whole and selections bit-identical to zarrita.get, fresh and into', async (name) => {
    const arr = await local('sharded_v3.zarr', name);
    const ref = await reference('sharded_v3.zarr', name);
    for (const selection of selections(arr.shape)) {
      const want = await zarr.get(ref, selection);
      const what = `${name} ${JSON.stringify(selection)}`;
      expectSameAsZarrita(await read(arr, { selection }), want, what);
      const into = new want.data.constructor(want.data.length).fill(7);
      expectSameAsZarrita(await read(arr, { selection, into }), want, `${what} into`); // empty inner chunks and a missing shard overwrite it
      // Workers reading the shards themselves, a row of chunks a slab, into shared memory.
      const shared = new want.data.constructor(new SharedArrayBuffer(want.data.byteLength)).fill(7);
      expectSameAsZarrita(await read(arr, { selection, pool, into: shared }), want, `${what} pool into`);
    }
  });

  test('labels_index_start reads as labels (zarrita cannot read it)', async () => {
    const start = await local('sharded_v3.zarr', 'labels_index_start');
    const end = await reference('sharded_v3.zarr', 'labels');
    for (const selection of selections(start.shape)) expectSameAsZarrita(await read(start, { selection }), await zarr.get(end, selection), `labels_index_start ${JSON.stringify(selection)}`);
  });

  test('tiledSlab: a whole shard is one slab; a hole in it, or a slab over MAX_SLAB_BYTES, is none', async () => {
    const counts = await local('sharded_v3.zarr', 'counts'); // 2048 x 2048 u16, shards 1024 x 1024 of 256 x 256
    const layout = await arrayLayout(counts);
    const dims = normalizeSelection(null, layout.shape);
    const geometry = outputGeometry(layout.shape);
    const all = [...chunkParts(dimensionParts(dims, layout.chunkShape))];
    const shard = all.filter((parts) => parts[0].chunk >= 4 && parts[1].chunk < 4); // shard (1, 0): 16 chunks
    expect(shard).toHaveLength(16);
    const slab = tiledSlab(layout, geometry, [0, 1], shard);
    expect(slab).toMatchObject({ base: 1024 * 2048, counts: [1024, 1024] });
    // As slabAssembler sizes and strides it: 1024 x 1024 values, rows of 1024.
    expect(slab.counts[0] * slab.counts[1]).toBe(1024 * 1024);
    expect(slabStrides(slab.counts, [0, 1], 2)).toEqual([1024, 1]);
    expect(slab.offsets.slice(0, 5)).toEqual([0, 256, 512, 768, 256 * 1024]);
    expect(tiledSlab(layout, geometry, [0, 1], shard.filter((_, k) => k !== 5))).toBeNull(); // a hole
    // Without its last row of chunks: a smaller box, still tiled.
    expect(tiledSlab(layout, geometry, [0, 1], shard.slice(0, 12))).toMatchObject({ base: 1024 * 2048, counts: [768, 1024] });
    // Two shards side by side: 4 MiB of u16, over the limit.
    expect(2 * 1024 * 1024 * 2).toBeGreaterThan(MAX_SLAB_BYTES);
    expect(tiledSlab(layout, geometry, [0, 1], all.filter((parts) => parts[0].chunk >= 4))).toBeNull();
  });

  test('chunkRows: a read takes a shard in rows of chunks, each one slab a quarter of the shard\'s size, with pieces as wide', async () => {
    const counts = await local('sharded_v3.zarr', 'counts'); // 2048 x 2048 u16, shards 1024 x 1024 of 256 x 256
    const layout = await arrayLayout(counts);
    const geometry = outputGeometry(layout.shape);
    const all = [...chunkParts(dimensionParts(normalizeSelection(null, layout.shape), layout.chunkShape))];
    // Shard (1, 0) as a range lists it: in the order of the shard file, Morton order from zarr-python (first axis fastest).
    const morton = ([r, c]) => [0, 1].reduce((code, bit) => code | (((r >> bit) & 1) << (2 * bit)) | (((c >> bit) & 1) << (2 * bit + 1)), 0);
    const shard = all
      .filter((parts) => parts[0].chunk >= 4 && parts[1].chunk < 4)
      .sort((a, b) => morton([a[0].chunk - 4, a[1].chunk]) - morton([b[0].chunk - 4, b[1].chunk]));
    expect(shard.slice(0, 4).map((parts) => `${parts[0].chunk},${parts[1].chunk}`)).toEqual(['4,0', '5,0', '4,1', '5,1']);
    const rows = chunkRows([0, 1], shard, (parts) => parts);
    expect(rows.map((row) => row.map((parts) => `${parts[0].chunk},${parts[1].chunk}`))).toEqual([
      ['4,0', '4,1', '4,2', '4,3'],
      ['5,0', '5,1', '5,2', '5,3'],
      ['6,0', '6,1', '6,2', '6,3'],
      ['7,0', '7,1', '7,2', '7,3'],
    ]);
    // Each row a slab of 256 x 1024 values (512 KB of u16; the shard's 2 MiB before), rows of 1024 as before.
    const slabs = rows.map((row) => tiledSlab(layout, geometry, [0, 1], row));
    expect(slabs.map((slab) => slab.base)).toEqual([0, 1, 2, 3].map((r) => (1024 + 256 * r) * 2048));
    for (const slab of slabs) {
      expect(slab.counts).toEqual([256, 1024]);
      expect(slab.offsets).toEqual([0, 256, 512, 768]);
    }
    // An integer index on the outer axis leaves one output axis: the range is one row.
    expect(chunkRows([1], shard.slice(0, 4), (parts) => parts)).toHaveLength(1);
    // A hole in a row (chunk 5,1 missing) leaves that row's chunks to be placed one by one; the other rows stay slabs.
    const holed = chunkRows([0, 1], shard.filter((parts) => `${parts[0].chunk},${parts[1].chunk}` !== '5,1'), (parts) => parts);
    expect(holed.map((row) => tiledSlab(layout, geometry, [0, 1], row) === null)).toEqual([false, true, false, false]);
  });
});

test('shardSlabPlan (a pool reading shards): each chunk\'s slab is its shard\'s part of the selection', async () => {
  const counts = await local('sharded_v3.zarr', 'counts'); // 2048 x 2048 u16, shards 1024 x 1024 of 256 x 256
  const layout = await arrayLayout(counts);
  const plan = (selection) => {
    const dims = normalizeSelection(selection, layout.shape);
    const shape = dims.filter((d) => d.index === undefined).map((d) => d.count);
    const kept = dims.flatMap((d, axis) => (d.index === undefined ? [axis] : []));
    const parts = dimensionParts(dims, layout.chunkShape);
    return { slabs: shardSlabPlan(layout, parts, outputGeometry(shape), kept), chunks: [...chunkParts(parts)] };
  };
  const whole = plan(null);
  expect(whole.slabs).toMatchObject({ axes: [0, 1], rank: 2, chunksPerSlab: 16 });
  const at = (list, c0, c1) => list.find((parts) => parts[0].chunk === c0 && parts[1].chunk === c1);
  // Chunk (5, 6): shard (1, 1), its place (1, 2) in the shard.
  expect(whole.slabs.of(at(whole.chunks, 5, 6))).toEqual({ base: 1024 * 2048 + 1024, counts: [1024, 1024], offset: 256 * 1024 + 512 });
  // A selection cutting shards: rows 900..1100, every column: shard (0, *) holds rows 900..1023.
  const cut = plan([zarr.slice(900, 1100), null]);
  expect(cut.slabs.of(at(cut.chunks, 3, 5))).toEqual({ base: 1024, counts: [124, 1024], offset: 256 });
  expect(cut.slabs.of(at(cut.chunks, 4, 0))).toEqual({ base: 124 * 2048, counts: [76, 1024], offset: 0 });
  // An integer index drops an axis: slabs along the other.
  const row = plan([1500, null]);
  expect(row.slabs.of(at(row.chunks, 5, 7))).toEqual({ base: 1024, counts: [1024], offset: 768 });
  // Unsharded arrays have slabPlan instead.
  expect(shardSlabPlan(await arrayLayout(await local('era5_like_v3.zarr', 't2m')), [], outputGeometry([1]), [0])).toBeNull();
});
