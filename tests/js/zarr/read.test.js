// numdecode/zarr read(): whole arrays and selections of every corpus store (written with the
// reference pcodec, ../shared/corpus/zarr-pcodec) come out bit-identical to zarrita.get with the
// pcodec codec (data, shape and stride), and to the corpus' expected values where zarrita cannot
// read the array (shards indexed at the start; float16 without Float16Array).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import FileSystemStore from '@zarrita/storage/fs';
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as zarr from 'zarrita';
import { init, ZarrError } from '../../../js/index.js';
import { LocalStore, read, readView, registerPcodec } from '../../../js/zarr.js';
import { float16BitsStore } from '../../../js/zarr/float16-bits.js';
import { bytesOf, corpusRoot, expectSameBytes, readBytes, readJson, sha256 } from '../helpers/corpus.js';
import { expectSameAsZarrita } from '../helpers/zarr-expect.js';

const zarrDir = path.join(corpusRoot, 'zarr-pcodec');
const manifest = readJson(zarrDir, 'expected/manifest.json');
const stores = new Map();

// float16 arrays open as their bits where the engine has no Float16Array (Node 20).
function storeOf(name) {
  if (!stores.has(name)) stores.set(name, float16BitsStore(new FileSystemStore(path.join(zarrDir, 'stores', name))));
  return stores.get(name);
}
const open = (store, array) => zarr.open(zarr.root(storeOf(store)).resolve(array), { kind: 'array' });

beforeAll(async () => {
  registerPcodec(zarr.registry);
  await init();
});

// The output's values in C order (a v2 order "F" array comes back in F order, as zarrita gives it).
function cOrderBytes({ data, shape, stride }) {
  const width = data.BYTES_PER_ELEMENT;
  const src = bytesOf(data);
  const n = shape.reduce((a, b) => a * b, 1);
  const out = new Uint8Array(n * width);
  const index = shape.map(() => 0);
  for (let flat = 0; flat < n; flat++) {
    const at = index.reduce((sum, i, d) => sum + i * stride[d], 0);
    out.set(src.subarray(at * width, (at + 1) * width), flat * width);
    for (let d = shape.length - 1; d >= 0 && ++index[d] === shape[d]; d--) index[d] = 0;
  }
  return out;
}

// The expected C-order bytes of a selection, picked from the whole array's expected bytes with
// plain loops (Python slice rules written out independently of js/zarr/plan.js).
function expectedSelection(all, shape, width, selection) {
  const indexes = shape.map((n, d) => {
    const s = selection?.[d] ?? null;
    if (typeof s === 'number') return [s < 0 ? s + n : s];
    const step = s?.step ?? 1;
    const clamp = (v, dflt) => (v === null || v === undefined ? dflt : v < 0 ? Math.max(0, v + n) : Math.min(v, n));
    const list = [];
    for (let i = clamp(s?.start, 0); i < clamp(s?.stop, n); i += step) list.push(i);
    return list;
  });
  const counts = indexes.map((l) => l.length);
  const total = counts.reduce((a, b) => a * b, 1);
  const out = new Uint8Array(total * width);
  const at = counts.map(() => 0);
  for (let flat = 0; flat < total; flat++) {
    let src = 0;
    for (let d = 0; d < shape.length; d++) src = src * shape[d] + indexes[d][at[d]];
    out.set(all.subarray(src * width, (src + 1) * width), flat * width);
    for (let d = shape.length - 1; d >= 0 && ++at[d] === counts[d]; d--) at[d] = 0;
  }
  return out;
}

const zarritaReads = (m) => m.index_location !== 'start' && !(m.dtype === 'float16' && typeof globalThis.Float16Array !== 'function');

describe('whole arrays', () => {
  test.each(manifest.map((m) => [`${m.store}/${m.array}`, m]))('%s equals the expected values', async (_, m) => {
    const arr = await open(m.store, m.array);
    const got = await read(arr);
    expect(got.shape).toEqual(m.shape);
    const bytes = cOrderBytes(got);
    if (m.bin) expectSameBytes(bytes, readBytes(zarrDir, m.bin), m.array);
    else expect(sha256(bytes)).toBe(m.sha256_of_bin);
    if (zarritaReads(m)) expectSameAsZarrita(got, await zarr.get(arr), `${m.store}/${m.array}`);
  });
});

// Selections with steps, integer and negative indexes, edge chunks and empty results.
function selectionsFor(shape) {
  const last = shape.length - 1;
  return [
    shape.map((n) => zarr.slice(1, n - 1, 3)), // steps across chunk edges
    shape.map((n, d) => (d === 0 ? n - 1 : null)), // the last index of the first axis
    shape.map((n, d) => (d === last ? zarr.slice(5, null, 7) : d === 0 ? -2 : zarr.slice(Math.floor(n / 3), n))), // edge chunks
    shape.map((n) => zarr.slice(n - 3, null)), // the corner chunk only
    shape.map((n, d) => (d === last ? zarr.slice(2, 3) : zarr.slice(null, null, 100))), // one column, far steps
    shape.map((n) => Math.floor(n / 2)), // one value: shape []
    shape.map((n, d) => (d === 0 ? zarr.slice(3, 3) : null)), // nothing
  ];
}

describe('selections', () => {
  const arrays = [
    ['era5_like_v3.zarr', 't2m'], // a missing chunk (NaN fill)
    ['era5_like_v3.zarr', 'tp'], // v2 chunk keys in v3, a chunk not written (0 fill)
    ['era5_like_v2.zarr', 'tp'], // order F
    ['era5_like_v2.zarr', 't2m'], // "." separator, missing chunk
    ['era5_like_v3.zarr', 'time'], // int64
    ['sharded_v3.zarr', 'counts'], // shards, empty inner chunks
    ['sharded_v3.zarr', 'labels'], // edge shards, a shard not written
    ['dtypes_v3.zarr', 'uint64'],
    ['dtypes_v3.zarr', 'int8'],
  ];
  test.each(arrays)('%s/%s: bit-identical to zarrita.get', async (store, name) => {
    const arr = await open(store, name);
    for (const selection of selectionsFor(arr.shape)) {
      const got = await read(arr, { selection });
      const what = `${store}/${name} ${JSON.stringify(selection)}`;
      // zarrita 0.7.5 throws on a selection of nothing ("Input contains an empty iterator").
      if (got.data.length === 0) expect({ what, shape: got.shape }).toEqual({ what, shape: [0, ...arr.shape.slice(1)] });
      else expectSameAsZarrita(got, await zarr.get(arr, selection), what);
    }
  });

  test('shards with the index at the start read as the same shards with it at the end', async () => {
    const start = await open('sharded_v3.zarr', 'labels_index_start');
    const end = await open('sharded_v3.zarr', 'labels');
    const m = manifest.find((e) => e.array === 'labels_index_start');
    const all = readBytes(zarrDir, m.bin);
    for (const selection of [null, ...selectionsFor(start.shape)]) {
      const got = await read(start, { selection });
      expectSameBytes(bytesOf(got.data), expectedSelection(all, m.shape, 4, selection), `labels_index_start ${JSON.stringify(selection)}`);
      if (got.data.length) expectSameAsZarrita(got, await zarr.get(end, selection), 'labels');
    }
  });

  test('float16 selections are the expected bits', async () => {
    const arr = await open('dtypes_v3.zarr', 'float16');
    const m = manifest.find((e) => e.store === 'dtypes_v3.zarr' && e.array === 'float16');
    const all = readBytes(zarrDir, m.bin);
    for (const selection of selectionsFor(arr.shape)) {
      const got = await read(arr, { selection });
      expect(got.data.BYTES_PER_ELEMENT).toBe(2);
      expectSameBytes(bytesOf(got.data), expectedSelection(all, m.shape, 2, selection), `float16 ${JSON.stringify(selection)}`);
    }
  });

  test('a selection longer than the rank, a bad index or a negative step is refused', async () => {
    const arr = await open('era5_like_v3.zarr', 't2m');
    await expect(read(arr, { selection: [0, 0, 0, 0] })).rejects.toThrow(RangeError);
    await expect(read(arr, { selection: [24] })).rejects.toMatchObject({ name: 'RangeError', dimension: 0 });
    await expect(read(arr, { selection: [zarr.slice(null, null, -1)] })).rejects.toThrow(/step -1/);
    await expect(read(arr, { selection: [1.5] })).rejects.toThrow(TypeError);
    await expect(read(arr, { nope: 1 })).rejects.toThrow(/unknown option "nope"/);
  });
});

describe('options', () => {
  test('metadata whose geometry would plan nonsense is refused by name (chunk shapes of 0, -1, 1.5 or the wrong rank read as all zeros before), as are a bad transpose order, a sharding codec without its configuration, a rectilinear grid and a chunk key separator that names no chunk', async () => {
    const src = path.join(zarrDir, 'stores', 'era5_like_v3.zarr');
    const meta = JSON.parse(new TextDecoder().decode(readBytes(src, 't2m/zarr.json')));
    const dir = mkdtempSync(path.join(os.tmpdir(), 'numdecode-bad-meta-'));
    const damaged = [
      [(m) => (m.chunk_grid.configuration.chunk_shape = [0, 91, 180]), 'ERR_BAD_DATA', /chunk shape \[0,91,180\] is not one positive integer per dimension/],
      [(m) => (m.chunk_grid.configuration.chunk_shape = [-1, 91, 180]), 'ERR_BAD_DATA', /chunk shape \[-1,91,180\]/],
      [(m) => (m.chunk_grid.configuration.chunk_shape = [1.5, 91, 180]), 'ERR_BAD_DATA', /chunk shape \[1.5,91,180\]/],
      [(m) => (m.chunk_grid.configuration.chunk_shape = [1, 91]), 'ERR_BAD_DATA', /chunk shape \[1,91\]/],
      [(m) => m.codecs.unshift({ name: 'transpose', configuration: { order: [5, 1, 2] } }), 'ERR_BAD_DATA', /transpose order \[5,1,2\] is not a permutation of its 3 axes/],
      [(m) => (m.codecs = [{ name: 'sharding_indexed' }]), 'ERR_BAD_DATA', /shards' inner chunk shape undefined/],
      [(m) => (m.chunk_grid = { name: 'rectilinear', configuration: { chunk_shapes: [[24], [181], [360]] } }), 'ERR_UNSUPPORTED', /chunk grid "rectilinear" is not regular/],
      // a separator no chunk key has: every chunk "missing", the whole read the fill value, before
      [(m) => (m.chunk_key_encoding = { name: 'default', configuration: { separator: '' } }), 'ERR_BAD_DATA', /chunk key separator "" is neither/],
    ];
    try {
      writeFileSync(path.join(dir, 'zarr.json'), JSON.stringify({ zarr_format: 3, node_type: 'group', attributes: {} }));
      mkdirSync(path.join(dir, 't2m'));
      for (const [damage, code, message] of damaged) {
        const m = structuredClone(meta);
        damage(m);
        writeFileSync(path.join(dir, 't2m', 'zarr.json'), JSON.stringify(m));
        const arr = await zarr.open(zarr.root(new LocalStore(dir)).resolve('t2m'), { kind: 'array' });
        const err = await read(arr).catch((e) => e);
        expect({ message: err.message, code: err.code, array: err.array }).toEqual({ message: expect.stringMatching(message), code, array: '/t2m' });
        expect(err).toBeInstanceOf(ZarrError);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a second read() of the same array object asks the store for its chunks only (its metadata was read once)', async () => {
    const inner = new LocalStore(path.join(zarrDir, 'stores', 'era5_like_v2.zarr'));
    const gets = [];
    const counting = { get: (key, o) => (gets.push(key), inner.get(key, o)) };
    const arr = await zarr.open(zarr.root(counting).resolve('t2m'), { kind: 'array' });
    const first = await read(arr, { selection: [3, null, null] });
    gets.length = 0;
    const again = await read(arr, { selection: [3, null, null] });
    expect(gets.length).toBeGreaterThan(0);
    expect(gets.filter((key) => /(zarr\.json|\.zarray|\.zattrs)$/.test(key))).toEqual([]);
    expectSameBytes(bytesOf(again.data), bytesOf(first.data), 't2m [3]');
    // another array object of the same path reads its metadata for itself
    const other = await zarr.open(zarr.root(counting).resolve('t2m'), { kind: 'array' });
    gets.length = 0;
    await read(other, { selection: [3, null, null] });
    expect(gets).toContain('/t2m/.zarray');
  });

  test('maxOutputBytes refuses a larger selection before anything is fetched; metadata claiming a huge shape gets a ZarrError, not the allocator\'s RangeError', async () => {
    const inner = new LocalStore(path.join(zarrDir, 'stores', 'era5_like_v3.zarr'));
    const gets = [];
    const counting = { get: (key, o) => (gets.push(key), inner.get(key, o)) };
    const arr = await zarr.open(zarr.root(counting).resolve('t2m'), { kind: 'array' }); // 24 x 181 x 360 f32
    gets.length = 0;
    const err = await read(arr, { maxOutputBytes: 181 * 360 * 4 * 2 - 1, selection: [zarr.slice(0, 2), null, null] }).catch((e) => e);
    expect(gets.filter((key) => !/(zarr\.json|\.zarray)$/.test(key))).toEqual([]); // refused before any chunk was asked for
    expect(err).toBeInstanceOf(ZarrError);
    expect(err).toMatchObject({ code: 'ERR_OUTPUT_LIMIT', array: '/t2m' });
    expect(err.message).toMatch(/shape \[2, 181, 360\]\) is 521280 bytes of f32, over maxOutputBytes=521279/);
    // at the limit it reads, exactly as without one
    const at = await read(arr, { maxOutputBytes: 181 * 360 * 4 * 2, selection: [zarr.slice(0, 2), null, null] });
    expectSameBytes(bytesOf(at.data), bytesOf((await read(arr, { selection: [zarr.slice(0, 2), null, null] })).data), 't2m [0:2]');
    await expect(read(arr, { maxOutputBytes: -1 })).rejects.toThrow(TypeError);
    await expect(readView(arr, { maxOutputBytes: 10 })).rejects.toMatchObject({ code: 'ERR_OUTPUT_LIMIT', array: '/t2m' });
    // an array whose metadata claims 10^12 values (4 TB): named, and a slice of it still reads
    const dir = mkdtempSync(path.join(os.tmpdir(), 'numdecode-huge-'));
    try {
      writeFileSync(path.join(dir, 'zarr.json'), JSON.stringify({ zarr_format: 3, node_type: 'group', attributes: {} }));
      mkdirSync(path.join(dir, 'a'));
      writeFileSync(
        path.join(dir, 'a', 'zarr.json'),
        JSON.stringify({
          zarr_format: 3, node_type: 'array', shape: [1e12], data_type: 'float32',
          chunk_grid: { name: 'regular', configuration: { chunk_shape: [1000] } },
          chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
          fill_value: 1.5, codecs: [{ name: 'bytes', configuration: { endian: 'little' } }], attributes: {},
        }),
      );
      const huge = await zarr.open(zarr.root(new LocalStore(dir)).resolve('a'), { kind: 'array' });
      const whole = await read(huge).catch((e) => e);
      expect(whole).toBeInstanceOf(ZarrError);
      expect(whole).toMatchObject({ code: 'ERR_OUTPUT_LIMIT', array: '/a' });
      expect(whole.message).toMatch(/cannot hold 4000000000000 bytes of output \(Array buffer allocation failed; /);
      expect(Array.from((await read(huge, { selection: [zarr.slice(5, 8)] })).data)).toEqual([1.5, 1.5, 1.5]);
      // 4.4 GB of i32: an ArrayBuffer V8 gives, but more bytes than its largest Uint8Array, through which chunks are placed
      const array = (name, shape, dataType, chunk, codecs) => {
        mkdirSync(path.join(dir, name));
        writeFileSync(path.join(dir, name, 'zarr.json'), JSON.stringify({
          zarr_format: 3, node_type: 'array', shape, data_type: dataType,
          chunk_grid: { name: 'regular', configuration: { chunk_shape: chunk } },
          chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
          fill_value: 0, codecs, attributes: {},
        }));
        return zarr.open(zarr.root(new LocalStore(dir)).resolve(name), { kind: 'array' });
      };
      const wide = await array('b', [1.1e9], 'int32', [1000], [{ name: 'bytes', configuration: { endian: 'little' } }]);
      await expect(read(wide)).rejects.toMatchObject({ code: 'ERR_OUTPUT_LIMIT', array: '/b', message: expect.stringMatching(/cannot hold 4400000000 bytes of output/) });
      expect(Array.from((await read(wide, { selection: [zarr.slice(0, 2)] })).data)).toEqual([0, 0]);
      // Pco chunks of 2^32 + 2048 values: their box would reach the module as 2048 (its low 32 bits)
      const tall = await array('c', [2048], 'float32', [2 ** 32 + 2048], [{ name: 'numcodecs.pcodec', configuration: {} }]);
      await expect(read(tall, { selection: [zarr.slice(0, 2)] })).rejects.toMatchObject({
        code: 'ERR_OUTPUT_LIMIT',
        array: '/c',
        message: expect.stringMatching(/its chunks of shape \[4294969344\] are 17179877376 bytes each, more than the 4 GiB a wasm decoder can hold/),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('into: the values land in the caller\'s array', async () => {
    const arr = await open('era5_like_v3.zarr', 'tp');
    const into = new Float32Array(181 * 360).fill(-1);
    const got = await read(arr, { selection: [7, null, null], into });
    expect(got.data).toBe(into);
    expectSameAsZarrita(got, await zarr.get(arr, [7, null, null]), 'tp[7]');
    await expect(read(arr, { selection: [7], into: new Float32Array(3) })).rejects.toThrow(/Float32Array of 65160 values/);
    const moved = new Float32Array(181 * 360);
    structuredClone(moved.buffer, { transfer: [moved.buffer] }); // now a worker's, say
    await expect(read(arr, { selection: [7, null, null], into: moved })).rejects.toThrow(/^zarr read: options\.into: its ArrayBuffer was detached/);
  });

  test('onProgress counts every chunk, stored or not', async () => {
    const arr = await open('era5_like_v3.zarr', 't2m');
    const seen = [];
    await read(arr, { selection: [zarr.slice(4, 6)], onProgress: (p) => seen.push(p) });
    // 2 time steps x 2 x 2 chunks, one of them (c/5/1/0) not stored.
    expect(seen.map((p) => p.chunks)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(seen.every((p) => p.totalChunks === 8)).toBe(true);
    expect(seen.at(-1).bytes).toBeGreaterThan(0);
    // the vocabulary's progress (docs/vocabulary.md), as BPCells reports it
    expect(seen.map((p) => [p.done, p.total, p.unit])).toEqual(seen.map((p) => [p.chunks, 8, 'chunks']));
  });
});

describe('chunks of codecs other than pcodec go through zarrita', () => {
  test('transpose + big-endian bytes, a chunk missing, in a Map store', async () => {
    const store = new Map();
    const codecs = [{ name: 'transpose', configuration: { order: 'F' } }, { name: 'bytes', configuration: { endian: 'big' } }];
    const created = await zarr.create(zarr.root(store).resolve('a'), { shape: [30, 17], chunkShape: [8, 5], dtype: 'int32', codecs, fillValue: -7 });
    await zarr.set(created, null, { data: Int32Array.from({ length: 30 * 17 }, (_, i) => i * 3 - 100), shape: [30, 17], stride: [17, 1] });
    expect(store.delete('/a/c/1/1')).toBe(true); // read as the fill value
    const arr = await zarr.open(zarr.root(store).resolve('a'), { kind: 'array' });
    for (const selection of [null, ...selectionsFor(arr.shape).slice(0, 6)]) {
      const got = await read(arr, { selection });
      expectSameAsZarrita(got, await zarr.get(arr, selection), `bytes ${JSON.stringify(selection)}`);
    }
    expect(Array.from((await read(arr, { selection: [9, 6] })).data)).toEqual([-7]);
  });
});

// A store over a corpus store that lets a test change what get() answers.
function wrappedStore(name, change) {
  const inner = new FileSystemStore(path.join(zarrDir, 'stores', name));
  return {
    gets: [],
    async get(key, options) {
      this.gets.push(key);
      return change(key, await inner.get(key, options));
    },
  };
}

describe('failures', () => {
  test('a damaged chunk names its key and the array', async () => {
    const store = wrappedStore('era5_like_v3.zarr', (key, bytes) => (key === '/t2m/c/3/0/1' ? bytes.subarray(0, bytes.length >> 1) : bytes));
    const arr = await zarr.open(zarr.root(store).resolve('t2m'), { kind: 'array' });
    const err = await read(arr).catch((e) => e);
    expect(err).toMatchObject({ code: 'ERR_BAD_DATA', file: '/t2m/c/3/0/1', array: '/t2m', dataset: '/t2m' });
    expect(err).toBeInstanceOf(ZarrError);
    expect(err.message).toContain('/t2m/c/3/0/1');
    // Only the chunk is damaged: a selection without it reads.
    expect((await read(arr, { selection: [2] })).shape).toEqual([181, 360]);
  });

  test('a chunk of another dtype or size is refused with both facts', async () => {
    const other = readBytes(zarrDir, 'stores/era5_like_v3.zarr/time/c/0');
    const store = wrappedStore('era5_like_v3.zarr', (key, bytes) => (key === '/t2m/c/0/0/0' ? other : bytes));
    const arr = await zarr.open(zarr.root(store).resolve('t2m'), { kind: 'array' });
    await expect(read(arr, { selection: [0] })).rejects.toMatchObject({ file: '/t2m/c/0/0/0', message: expect.stringMatching(/holds i64 values but the array's data type needs f32/) });
  });

  test('a store that fails names the key', async () => {
    const store = wrappedStore('era5_like_v3.zarr', (key, bytes) => {
      if (key === '/tp/1.2.0') throw new Error('connection reset');
      return bytes;
    });
    const arr = await zarr.open(zarr.root(store).resolve('tp'), { kind: 'array' });
    await expect(read(arr)).rejects.toMatchObject({ code: 'ERR_NETWORK', file: '/tp/1.2.0', array: '/tp', dataset: '/tp', message: expect.stringContaining('connection reset') });
  });

  test('abort stops fetching: no chunk is asked for after it', async () => {
    const controller = new AbortController();
    let chunkGets = 0;
    const store = wrappedStore('era5_like_v3.zarr', (key, bytes) => {
      if (key.includes('/c/') && ++chunkGets === 3) controller.abort(new Error('slider moved'));
      return bytes;
    });
    const arr = await zarr.open(zarr.root(store).resolve('t2m'), { kind: 'array' });
    const err = await read(arr, { signal: controller.signal, concurrency: 4 }).catch((e) => e);
    expect(err).toMatchObject({ code: 'ERR_ABORTED' });
    expect(err.cause.message).toBe('slider moved');
    await new Promise((r) => setTimeout(r, 50));
    expect(chunkGets).toBeLessThanOrEqual(4); // those in flight when it fired; 96 chunks in all
    const before = store.gets.length;
    await expect(read(arr, { signal: controller.signal })).rejects.toMatchObject({ code: 'ERR_ABORTED' });
    expect(store.gets.length).toBe(before);
  });
});

describe('in a worker pool', () => {
  let pool;
  beforeAll(async () => {
    const { createWorkerPool } = await import('../../../js/worker/index.js');
    pool = await createWorkerPool({ size: 2 });
  });
  afterAll(() => pool?.terminate());

  const cases = [
    ['era5_like_v3.zarr', 't2m', [zarr.slice(2, 9), null, zarr.slice(3, null, 2)]],
    ['era5_like_v2.zarr', 'tp', null],
    ['sharded_v3.zarr', 'counts', [zarr.slice(100, 1900, 3), 5]],
    ['sharded_v3.zarr', 'labels_index_start', null],
    ['dtypes_v3.zarr', 'float16', [zarr.slice(7, null, 3)]],
    ['dtypes_v3.zarr', 'int64', null],
  ];

  test.each(cases)('%s/%s: workers decode into one SharedArrayBuffer, values as on this thread', async (store, name, selection) => {
    const arr = await open(store, name);
    const before = pool.stats().completed;
    const got = await read(arr, { selection, pool });
    expect(got.data.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(pool.stats().completed).toBeGreaterThan(before);
    expectSameAsZarrita(got, await read(arr, { selection }), `${store}/${name}`);
  });

  test('into an ArrayBuffer-backed array: the workers send the boxes back to be placed here', async () => {
    const arr = await open('era5_like_v3.zarr', 't2m');
    const into = new Float32Array(24 * 181 * 360);
    const got = await read(arr, { pool, into });
    expect(got.data).toBe(into);
    expectSameAsZarrita(got, await zarr.get(arr), 't2m');
  });

  test('a damaged chunk decoded in a worker names its key and the array', async () => {
    const store = wrappedStore('era5_like_v3.zarr', (key, bytes) => (key === '/tp/1.1.1' ? bytes.subarray(0, 40) : bytes));
    const arr = await zarr.open(zarr.root(store).resolve('tp'), { kind: 'array' });
    await expect(read(arr, { pool })).rejects.toMatchObject({ file: '/tp/1.1.1', dataset: '/tp' });
    // The pool is still usable.
    expect((await read(arr, { pool, selection: [0] })).shape).toEqual([181, 360]);
  });

  test('from a LocalStore the workers read the chunk files themselves: missing chunks filled, shared or not', async () => {
    const local = new LocalStore(path.join(zarrDir, 'stores', 'era5_like_v3.zarr'));
    let gets = 0;
    const get = local.get.bind(local);
    local.get = (key, options) => (key.includes('/c/') && gets++, get(key, options));
    for (const name of ['t2m', 'tp']) {
      const arr = await zarr.open(zarr.root(local).resolve(name), { kind: 'array' });
      for (const selection of [null, [zarr.slice(4, 7), zarr.slice(50, 150), null]]) {
        const want = await zarr.get(await open('era5_like_v3.zarr', name), selection);
        expectSameAsZarrita(await read(arr, { selection, pool }), want, `local ${name}`);
        expectSameAsZarrita(await read(arr, { selection, pool, into: new Float32Array(want.data.length) }), want, `local ${name} into`);
      }
    }
    expect(gets).toBe(0); // no chunk went through this thread
    const labels = await zarr.open(zarr.root(new LocalStore(path.join(zarrDir, 'stores', 'sharded_v3.zarr'))).resolve('labels'), { kind: 'array' });
    expectSameAsZarrita(await read(labels, { pool }), await zarr.get(labels), 'local sharded (read by the workers)');
  });

  test('from a LocalStore the workers read each shard\'s chunks where its index (read here once) says: both index locations, missing shards and inner chunks, shared or not', async () => {
    const local = new LocalStore(path.join(zarrDir, 'stores', 'sharded_v3.zarr'));
    const calls = { get: 0, getRange: 0 };
    for (const name of ['get', 'getRange']) {
      const own = local[name].bind(local);
      local[name] = (key, ...rest) => (key.includes('/c/') && calls[name]++, own(key, ...rest));
    }
    for (const name of ['labels', 'labels_index_start']) {
      const arr = await zarr.open(zarr.root(local).resolve(name), { kind: 'array' });
      const m = manifest.find((e) => e.array === name);
      const all = readBytes(zarrDir, m.bin);
      for (const selection of [null, ...selectionsFor(arr.shape)]) {
        const what = `local ${name} ${JSON.stringify(selection)}`;
        const want = expectedSelection(all, m.shape, 4, selection);
        const shared = await read(arr, { selection, pool });
        expect(shared.data.buffer).toBeInstanceOf(SharedArrayBuffer);
        expectSameBytes(bytesOf(shared.data), want, what);
        const into = new Uint32Array(want.length / 4).fill(0xdeadbeef); // boxes sent back; fill written here
        expectSameBytes(bytesOf((await read(arr, { selection, pool, into })).data), want, `${what} into`);
      }
      calls.getRange = 0;
      await read(arr, { pool });
      expect(calls).toEqual({ get: 0, getRange: 9 }); // each of the 3 x 3 shards' index, no chunk here
    }
  });

  test('a shard cut short, read by a worker: the chunk past its end is named with its shard and the array', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'numdecode-zarr-read-'));
    try {
      cpSync(path.join(zarrDir, 'stores', 'sharded_v3.zarr'), dir, { recursive: true });
      const shard = path.join(dir, 'labels_index_start/c/0/0');
      truncateSync(shard, statSync(shard).size - 100); // the index is at the start: it stays whole
      const arr = await zarr.open(zarr.root(new LocalStore(dir)).resolve('labels_index_start'), { kind: 'array' });
      const err = await read(arr, { pool }).catch((e) => e);
      expect(err).toMatchObject({ code: 'ERR_BAD_DATA', array: '/labels_index_start', file: expect.stringMatching(/^\/labels_index_start\/c\/0\/0 \(chunk \d+,\d+\)$/) });
      expect(err.message).toMatch(/that its shard index names are not in the shard/);
      // The other shards still read.
      expect((await read(arr, { pool, selection: [zarr.slice(256, 600), null] })).shape).toEqual([344, 700]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a damaged chunk file a worker read names its key and the array', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'numdecode-zarr-read-'));
    try {
      cpSync(path.join(zarrDir, 'stores', 'era5_like_v3.zarr'), dir, { recursive: true });
      truncateSync(path.join(dir, 't2m/c/3/0/1'), 200);
      const arr = await zarr.open(zarr.root(new LocalStore(dir)).resolve('t2m'), { kind: 'array' });
      await expect(read(arr, { pool })).rejects.toMatchObject({ code: 'ERR_BAD_DATA', file: '/t2m/c/3/0/1', array: '/t2m', dataset: '/t2m' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('workers: N starts a pool for the read and stops it after', async () => {
    const arr = await open('sharded_v3.zarr', 'labels');
    const got = await read(arr, { workers: 1 });
    expectSameAsZarrita(got, await zarr.get(arr), 'labels');
    await expect(read(arr, { workers: 1, pool })).rejects.toThrow(/not both/);
  });
});

test('numdecode/zarr exports the error family: its errors are NumdecodeErrors with CODES', async () => {
  const entry = await import('../../../js/zarr.js');
  const index = await import('../../../js/index.js');
  expect(entry.NumdecodeError).toBe(index.NumdecodeError);
  expect(entry.CODES).toBe(index.CODES);
  const arr = await open('era5_like_v3.zarr', 't2m');
  const err = await read(arr, { maxOutputBytes: 1 }).catch((e) => e);
  expect(err).toBeInstanceOf(entry.ZarrError);
  expect(err).toBeInstanceOf(entry.NumdecodeError);
  expect(err.code).toBe(entry.CODES.OUTPUT_LIMIT);
});
