// numdecode/zarr readView(): the zero-copy output style of a Zarr read. Every corpus store's
// pcodec arrays and selections come out as a view of the Pco module's memory holding exactly what
// zarrita.get (and the corpus' expected values) hold; missing chunks get the fill value even where
// the memory held other values before; failures, aborts and release() give the memory back.
import { beforeAll, describe, expect, test } from '@jest/globals';
import FileSystemStore from '@zarrita/storage/fs';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as zarr from 'zarrita';
import { init, releaseMemory, ZarrError } from '../../../js/index.js';
import { LocalStore, read, readView, registerPcodec } from '../../../js/zarr.js';
import { float16BitsStore } from '../../../js/zarr/float16-bits.js';
import { liveViews } from '../../../js/wasm/views.js';
import { getModule } from '../../../js/wasm/load.js';
import { bytesOf, corpusRoot, expectSameBytes, readBytes, readJson, sha256 } from '../helpers/corpus.js';
import { expectSameAsZarrita } from '../helpers/zarr-expect.js';

const zarrDir = path.join(corpusRoot, 'zarr-pcodec');
const manifest = readJson(zarrDir, 'expected/manifest.json');
const storeDir = (name) => path.join(zarrDir, 'stores', name);
const open = (store, array) => zarr.open(zarr.root(float16BitsStore(store)).resolve(array), { kind: 'array' });
const liveZarrViews = () => liveViews(getModule('pco'))['zarr.readView'] ?? 0;

beforeAll(async () => {
  registerPcodec(zarr.registry);
  await init();
});

// A view's block as read() would give it: the values copied out, before the view is released.
function copied(view) {
  return { data: view.data.slice(), shape: view.shape, stride: view.stride };
}

describe('values', () => {
  // Each corpus array through both kinds of store: a LocalStore (chunks lent in order) and
  // zarrita's FileSystemStore (chunks as they come).
  const stores = [
    ['LocalStore', (name) => new LocalStore(storeDir(name))],
    ['FileSystemStore', (name) => new FileSystemStore(storeDir(name))],
  ];
  test.each(stores)('every corpus array, whole, through a %s: the expected values, as read() gives them', async (_, storeOf) => {
    for (const m of manifest) {
      const arr = await open(storeOf(m.store), m.array);
      const view = await readView(arr);
      const what = `${m.store}/${m.array}`;
      const want = await read(arr);
      expect({ what, shape: view.shape, stride: view.stride, length: view.length, byteLength: view.byteLength }).toEqual({
        what,
        shape: want.shape,
        stride: want.stride,
        length: want.data.length,
        byteLength: want.data.byteLength,
      });
      expect(view.data.constructor.name).toBe(want.data.constructor.name);
      expect(view.data.buffer).toBe(getModule('pco').HEAPU8.buffer); // in wasm memory, not a copy
      expectSameBytes(bytesOf(view.data), bytesOf(want.data), what);
      // read() is checked against the corpus elsewhere; here the view is too, in C order.
      if (m.bin && view.stride.every((s, d) => d === 0 || s <= view.stride[d - 1])) expectSameBytes(bytesOf(view.data), readBytes(zarrDir, m.bin), what);
      else if (!m.bin && view.stride.every((s, d) => d === 0 || s <= view.stride[d - 1])) expect(sha256(bytesOf(view.data))).toBe(m.sha256_of_bin);
      view.release();
    }
    expect(liveZarrViews()).toBe(0);
  });

  test('selections (steps, integer indexes, edge chunks, one value, F order, shards) are bit-identical to zarrita.get', async () => {
    const arrays = [
      ['era5_like_v3.zarr', 't2m'],
      ['era5_like_v2.zarr', 'tp'], // order F
      ['era5_like_v3.zarr', 'time'], // int64
      ['sharded_v3.zarr', 'counts'],
      ['sharded_v3.zarr', 'labels'],
      ['dtypes_v3.zarr', 'int8'],
    ];
    for (const [name, array] of arrays) {
      const arr = await open(new LocalStore(storeDir(name)), array);
      const last = arr.shape.length - 1;
      const selections = [
        arr.shape.map((n) => zarr.slice(1, n - 1, 3)),
        arr.shape.map((n, d) => (d === 0 ? n - 1 : null)),
        arr.shape.map((n, d) => (d === last ? zarr.slice(5, null, 7) : d === 0 ? -2 : zarr.slice(Math.floor(n / 3), n))),
        arr.shape.map((n) => Math.floor(n / 2)),
      ];
      for (const selection of selections) {
        const what = `${name}/${array} ${JSON.stringify(selection)}`;
        const view = await readView(arr, { selection });
        expectSameAsZarrita(copied(view), await zarr.get(arr, selection), what);
        view.release();
      }
    }
    expect(liveZarrViews()).toBe(0);
  });

  test("a LocalStore's chunks, lent in order, go through row slabs copied into the view (t2m: two chunks across the last axis), with the module's memory grown before every chunk", async () => {
    const arr = await zarr.open(zarr.root(new LocalStore(storeDir('era5_like_v3.zarr'))).resolve('t2m'), { kind: 'array' });
    const mod = getModule('pco');
    (await readView(arr, { selection: [0, null, null] })).release(); // Emscripten's export stubs replaced by now
    const decodeInto = mod._numdecode_pco_decode_box_into;
    const grown = [];
    let targets = [];
    let held = 0;
    mod._numdecode_pco_decode_box_into = (...args) => {
      targets.push(args[4] >>> 0);
      held = Math.max(held, liveViews(mod)['zarr read slab'] ?? 0); // the slab holds the module: no releaseMemory() under it
      grown.push(mod._malloc(1 << 20)); // memory grows now and then: views made before are detached
      return decodeInto(...args);
    };
    try {
      for (const selection of [null, [zarr.slice(2, 20, 3), null, zarr.slice(10, 350)], [5, zarr.slice(0, 181, 2), null]]) {
        const options = selection ? { selection } : {};
        targets = [];
        const view = await readView(arr, options);
        // Decoded into slabs (memory of the read's own), not into the view itself.
        const inView = (at) => at >= view.data.byteOffset && at < view.data.byteOffset + view.byteLength;
        expect(targets.length).toBeGreaterThan(0);
        expect(targets.some((at) => !inView(at))).toBe(true);
        const want = await read(arr, options);
        expect(view.shape).toEqual(want.shape);
        expectSameBytes(bytesOf(view.data), bytesOf(want.data), `t2m ${JSON.stringify(selection)}`);
        view.release();
      }
      expect(held).toBe(1);
      expect(liveViews(mod)['zarr read slab'] ?? 0).toBe(0); // and lets go when the read ends
    } finally {
      mod._numdecode_pco_decode_box_into = decodeInto;
      for (const p of grown) mod._free(p);
    }
    expect(liveZarrViews()).toBe(0);
  });

  test('reads running at the same time (a viewer moving its slider) each get their own values: readView and read(), through slabs and straight into a view', async () => {
    const stores = [new LocalStore(storeDir('era5_like_v3.zarr')), new FileSystemStore(storeDir('era5_like_v3.zarr'))];
    for (const store of stores) {
      const arr = await zarr.open(zarr.root(store).resolve('t2m'), { kind: 'array' });
      const selections = [0, 1, 2, 3, 7, 11].map((t) => [t, null, null]);
      selections.push([zarr.slice(0, 12), null, null], [zarr.slice(12, 24), null, null]);
      const want = [];
      for (const selection of selections) want.push((await read(arr, { selection })).data.slice());
      for (const concurrency of [1, 16]) {
        const views = await Promise.all(selections.map((selection) => readView(arr, { selection, concurrency })));
        const reads = await Promise.all(selections.map((selection) => read(arr, { selection, concurrency })));
        selections.forEach((selection, k) => {
          const what = `${store.constructor.name} t2m ${JSON.stringify(selection)} concurrency ${concurrency}`;
          expectSameBytes(bytesOf(views[k].data), bytesOf(want[k]), `readView ${what}`);
          expectSameBytes(bytesOf(reads[k].data), bytesOf(want[k]), `read ${what}`);
        });
        for (const view of views) view.release();
      }
    }
    expect(liveZarrViews()).toBe(0);
  });

  test('a selection of nothing is an empty view (shape [0, ...]), released like any other', async () => {
    const arr = await open(new LocalStore(storeDir('era5_like_v3.zarr')), 't2m');
    const view = await readView(arr, { selection: [zarr.slice(3, 3), null, null] });
    expect({ shape: view.shape, length: view.length, byteLength: view.byteLength, data: view.data.length }).toEqual({ shape: [0, 181, 360], length: 0, byteLength: 0, data: 0 });
    expect(liveZarrViews()).toBe(1);
    view.release();
    expect(liveZarrViews()).toBe(0);
  });

  test('random selections (seeded) of a C-order, an F-order and a sharded array: the same as read()', async () => {
    let seed = 20261127;
    const next = (n) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const entry = (n) => {
      const kind = next(4);
      if (kind === 0) return null;
      if (kind === 1) return next(n); // an index: the dimension drops out
      const start = next(n);
      return zarr.slice(start, start + 1 + next(n - start), 1 + next(7));
    };
    for (const [name, array] of [['era5_like_v3.zarr', 't2m'], ['era5_like_v2.zarr', 'tp'], ['sharded_v3.zarr', 'labels']]) {
      const arr = await open(new LocalStore(storeDir(name)), array);
      for (let k = 0; k < 10; k++) {
        const selection = arr.shape.map(entry);
        const what = `${name}/${array} ${JSON.stringify(selection)}`;
        const want = await read(arr, { selection });
        const view = await readView(arr, { selection });
        expect({ what, shape: view.shape, stride: view.stride }).toEqual({ what, shape: want.shape, stride: want.stride });
        expectSameBytes(bytesOf(view.data), bytesOf(want.data), what);
        view.release();
      }
    }
  });

  test('shards with the index at the start: the expected values', async () => {
    const m = manifest.find((e) => e.array === 'labels_index_start');
    const arr = await open(new LocalStore(storeDir(m.store)), m.array);
    const view = await readView(arr);
    expectSameBytes(bytesOf(view.data), readBytes(zarrDir, m.bin), m.array);
    view.release();
  });

  test('missing chunks take the fill value even where the memory held other values (0 fill too)', async () => {
    // One of tp's chunks is not written (fill 0): dirty the memory a view of the same size takes.
    const arr = await open(new FileSystemStore(storeDir('era5_like_v3.zarr')), 'tp');
    const want = await zarr.get(arr);
    expect(Array.from(want.data).some((v) => v === 0)).toBe(true);
    const first = await readView(arr);
    first.data.fill(12345.5);
    first.release();
    const view = await readView(arr);
    expectSameAsZarrita(copied(view), want, 'tp over dirtied memory');
    view.release();
  });
});

describe('memory and failures', () => {
  test('release() frees the view once; data throws after it; releaseMemory() waits for live views', async () => {
    const arr = await open(new LocalStore(storeDir('era5_like_v3.zarr')), 't2m');
    const view = await readView(arr, { selection: [0, null, null] });
    expect(view.released).toBe(false);
    expect(liveZarrViews()).toBe(1);
    await expect(releaseMemory({ formats: ['pco'] })).rejects.toMatchObject({ code: 'ERR_IN_USE' });
    view.release();
    view.release();
    expect(view.released).toBe(true);
    expect(() => view.data).toThrow(/released/);
    expect(liveZarrViews()).toBe(0);
    await releaseMemory({ formats: ['pco'] });
    // A fresh module reads again.
    const again = await readView(arr, { selection: [0, null, null] });
    expectSameAsZarrita(copied(again), await zarr.get(arr, [0, null, null]), 't2m[0] after releaseMemory');
    again[Symbol.dispose]();
    expect(again.released).toBe(true);
  });

  test('a damaged chunk names its key and the array, and frees the output', async () => {
    const inner = new FileSystemStore(storeDir('era5_like_v3.zarr'));
    const store = { get: async (key, o) => ((b) => (key === '/t2m/c/3/0/1' ? b.subarray(0, b.length >> 1) : b))(await inner.get(key, o)) };
    const arr = await open(store, 't2m');
    const err = await readView(arr).catch((e) => e);
    expect(err).toBeInstanceOf(ZarrError);
    expect(err).toMatchObject({ code: 'ERR_BAD_DATA', file: '/t2m/c/3/0/1', array: '/t2m' });
    expect(liveZarrViews()).toBe(0);
  });

  test('abort: ERR_ABORTED, and the output is freed', async () => {
    const controller = new AbortController();
    const inner = new FileSystemStore(storeDir('era5_like_v3.zarr'));
    let chunkGets = 0;
    const store = {
      async get(key, o) {
        if (key.includes('/c/') && ++chunkGets === 3) controller.abort(new Error('slider moved'));
        return inner.get(key, o);
      },
    };
    const arr = await open(store, 't2m');
    await expect(readView(arr, { signal: controller.signal, concurrency: 4 })).rejects.toMatchObject({ code: 'ERR_ABORTED' });
    expect(liveZarrViews()).toBe(0);
  });

  test('options it cannot honour, and arrays of other codecs, are refused', async () => {
    const arr = await open(new LocalStore(storeDir('era5_like_v3.zarr')), 't2m');
    await expect(readView(arr, { workers: 2 })).rejects.toThrow(/unknown option "workers"/);
    await expect(readView(arr, { into: new Float32Array(1) })).rejects.toThrow(/unknown option "into"/);
    await expect(readView(arr, { selection: [99] })).rejects.toThrow(RangeError);
    const store = new Map();
    await zarr.create(zarr.root(store).resolve('a'), { shape: [4], chunkShape: [2], dtype: 'int32' });
    const plain = await zarr.open(zarr.root(store).resolve('a'), { kind: 'array' });
    await expect(readView(plain)).rejects.toMatchObject({ code: 'ERR_UNSUPPORTED', array: '/a' });
    expect(liveZarrViews()).toBe(0);
  });
});

// The Pco module takes a chunk's box through parameter arrays of 32 axes: an array of 32 dimensions
// reads (the reference pcodec's latitude chunk, as a 181 x 1 x ... x 1 array), one of 33 is
// refused before anything is written there (it would have run past them into other statics).
describe('arrays of many dimensions', () => {
  const latitudeDir = path.join(storeDir('era5_like_v3.zarr'), 'latitude');
  const manyAxes = async (rank) => {
    const doc = JSON.parse(readFileSync(path.join(latitudeDir, 'zarr.json'), 'utf8'));
    const ones = Array(rank - 1).fill(1);
    Object.assign(doc, { shape: [181, ...ones], dimension_names: undefined });
    doc.chunk_grid.configuration.chunk_shape = [181, ...ones];
    const store = new Map([
      ['/zarr.json', new TextEncoder().encode(JSON.stringify({ zarr_format: 3, node_type: 'group', attributes: {} }))],
      ['/lat/zarr.json', new TextEncoder().encode(JSON.stringify(doc))],
      [`/lat/c/${Array(rank).fill(0).join('/')}`, new Uint8Array(readFileSync(path.join(latitudeDir, 'c', '0')))],
    ]);
    return zarr.open(zarr.root(store).resolve('lat'), { kind: 'array' });
  };

  test('32 dimensions read as the 1-dimensional array does; 33 are refused, naming the array', async () => {
    const flat = await read(await open(new LocalStore(storeDir('era5_like_v3.zarr')), 'latitude'));
    const arr32 = await manyAxes(32);
    const got = await read(arr32);
    expect(got.shape).toEqual([181, ...Array(31).fill(1)]);
    expectSameBytes(bytesOf(got.data), bytesOf(flat.data), '32 dimensions');
    const view = await readView(arr32);
    expectSameBytes(bytesOf(view.data), bytesOf(flat.data), '32 dimensions, readView');
    view.release();
    const arr33 = await manyAxes(33);
    const refused = { code: 'ERR_UNSUPPORTED', array: '/lat', message: expect.stringMatching(/it has 33 dimensions; numdecode decodes pcodec chunks of arrays of up to 32/) };
    await expect(read(arr33)).rejects.toMatchObject(refused);
    await expect(readView(arr33)).rejects.toMatchObject(refused);
    expect(liveZarrViews()).toBe(0);
    expectSameBytes(bytesOf((await read(arr32)).data), bytesOf(flat.data), '32 dimensions after the refusals');
  });
});
