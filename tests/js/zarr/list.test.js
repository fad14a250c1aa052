// numdecode/zarr list(): the hierarchy of every corpus store (../shared/corpus/zarr-pcodec: v2 and
// v3, consolidated or not, sharded with the index at the end and at the start, every dtype incl.
// float16), compared with the stores' own metadata files read from disk here (and with the
// corpus manifest, written by the corpus' maker); the same listing from a directory, a zarrita
// store and over HTTP; and the errors a user meets (ZarrError, with code and fields). openArray():
// the arrays zarrita alone cannot open or read (float16 on Node 20, shards indexed at the start) read
// with numdecode's read() as the corpus expects, behind the same guards.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import FileSystemStore from '@zarrita/storage/fs';
import { NumdecodeError, ZarrError as BaseZarrError } from '../../../js/errors.js';
import { init } from '../../../js/index.js';
import { LocalStore, ZarrError, list, openArray, read } from '../../../js/zarr.js';
import { corpusRoot, readBytes, readJson } from '../helpers/corpus.js';
import { serveDirectory, startServer } from '../helpers/io-test-server.js';

const zarrDir = path.join(corpusRoot, 'zarr-pcodec');
const storesDir = path.join(zarrDir, 'stores');
const manifest = readJson(zarrDir, 'expected/manifest.json');
const STORES = ['era5_like_v3.zarr', 'era5_like_v2.zarr', 'sharded_v3.zarr', 'dtypes_v3.zarr'];
const DTYPES = { int8: 'i8', uint8: 'u8', int16: 'i16', uint16: 'u16', int32: 'i32', uint32: 'u32', int64: 'i64', uint64: 'u64', float16: 'f16', float32: 'f32', float64: 'f64' };
const PCODEC = new Set(['pcodec', 'numcodecs.pcodec']);

let tmp;
let server;
beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'numdecode-zarr-list-'));
  server = await startServer();
});
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
  await server?.close();
});

const json = (file) => JSON.parse(readFileSync(file, 'utf8'));

// What the store's files on disk say, independently of list(): path -> the node as list() should
// describe it. Walks the directory for zarr.json / .zarray / .zgroup.
function fromDisk(store) {
  const root = path.join(storesDir, store);
  const want = new Map();
  const walk = (dir, rel) => {
    const names = readdirSync(dir);
    const at = rel === '' ? '/' : rel;
    if (names.includes('zarr.json')) want.set(at, v3Node(at, json(path.join(dir, 'zarr.json'))));
    else if (names.includes('.zarray') || names.includes('.zgroup')) want.set(at, v2Node(at, dir, names));
    for (const name of names) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory() && !(name === 'c' && names.includes('zarr.json'))) walk(full, `${rel}/${name}`);
    }
  };
  walk(root, '');
  return want;
}

function v3Node(at, meta) {
  if (meta.node_type === 'group') return { kind: 'group', path: at, zarrFormat: 3, attributes: meta.attributes ?? {} };
  const shard = meta.codecs.find((c) => c.name === 'sharding_indexed');
  const codecs = [];
  for (const c of meta.codecs) {
    codecs.push({ name: c.name, configuration: c.configuration ?? {}, role: 'codec', depth: 0 });
    for (const inner of c.name === 'sharding_indexed' ? c.configuration.codecs : []) codecs.push({ name: inner.name, configuration: inner.configuration ?? {}, role: 'inner codec', depth: 1 });
    for (const index of c.name === 'sharding_indexed' ? c.configuration.index_codecs : []) codecs.push({ name: index.name, configuration: index.configuration ?? {}, role: 'index codec', depth: 1 });
  }
  return {
    kind: 'array', path: at, zarrFormat: 3, attributes: meta.attributes ?? {},
    shape: meta.shape,
    chunks: shard ? shard.configuration.chunk_shape : meta.chunk_grid.configuration.chunk_shape,
    shards: shard ? meta.chunk_grid.configuration.chunk_shape : null,
    indexLocation: shard ? shard.configuration.index_location ?? 'end' : null,
    dataType: meta.data_type, dtype: DTYPES[meta.data_type], fillValue: meta.fill_value, order: null,
    chunkKeyEncoding: { name: meta.chunk_key_encoding.name, separator: meta.chunk_key_encoding.configuration?.separator ?? (meta.chunk_key_encoding.name === 'v2' ? '.' : '/') },
    codecs,
    dimensionNames: meta.dimension_names ?? null,
  };
}

function v2Node(at, dir, names) {
  const attributes = names.includes('.zattrs') ? json(path.join(dir, '.zattrs')) : {};
  if (!names.includes('.zarray')) return { kind: 'group', path: at, zarrFormat: 2, attributes };
  const meta = json(path.join(dir, '.zarray'));
  const { id, ...configuration } = meta.compressor;
  const dataType = { '<f4': 'float32', '<f8': 'float64', '<i8': 'int64' }[meta.dtype];
  return {
    kind: 'array', path: at, zarrFormat: 2, attributes,
    shape: meta.shape, chunks: meta.chunks, shards: null, indexLocation: null,
    dataType, dtype: DTYPES[dataType], v2Dtype: meta.dtype, fillValue: meta.fill_value, order: meta.order,
    chunkKeyEncoding: { name: 'v2', separator: meta.dimension_separator ?? '.' },
    codecs: [{ name: id, configuration, role: 'compressor', depth: 0 }],
    dimensionNames: attributes._ARRAY_DIMENSIONS ?? null,
  };
}

// A one-array store whose codec chain ends in numcodecs.fpzip, which nothing here decodes.
function fpzipStore() {
  const dir = path.join(tmp, 'fpzip.zarr');
  if (existsSync(dir)) return dir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'zarr.json'), JSON.stringify({
    zarr_format: 3, node_type: 'array', shape: [10], data_type: 'float32',
    chunk_grid: { name: 'regular', configuration: { chunk_shape: [10] } },
    chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
    fill_value: 0, codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'numcodecs.fpzip', configuration: {} }],
  }));
  return dir;
}

// list()'s node without the decoder verdicts (checked on their own).
const withoutVerdicts = ({ undecodableCodecs, codecs, ...node }) => (codecs ? { ...node, codecs: codecs.map(({ decoder, ...c }) => c) } : node);

describe.each(STORES)('%s', (store) => {
  test('every group and array, as its metadata files on disk say', async () => {
    const want = fromDisk(store);
    const got = await list(path.join(storesDir, store));
    expect(got.store).toBe(path.join(storesDir, store));
    expect(got.nodes.map((n) => n.path)).toEqual([...want.keys()].sort((a, b) => a.localeCompare(b)));
    expect(got.nodes.map(withoutVerdicts)).toEqual(got.nodes.map((n) => want.get(n.path)));
    expect(got.errors).toEqual([]);
    expect(got.complete).toBe(true);
    expect(got.kind).toBe('group');
    expect(got.zarrFormat).toBe(store.includes('v2') ? 2 : 3);
    // Consolidated metadata: the v3 root zarr.json's consolidated_metadata, or v2's .zmetadata.
    const rootDoc = got.zarrFormat === 3 ? json(path.join(storesDir, store, 'zarr.json')) : null;
    expect(got.consolidated).toBe(rootDoc ? rootDoc.consolidated_metadata != null : existsSync(path.join(storesDir, store, '.zmetadata')));
    // Every codec of these stores is decoded here: pcodec by numdecode, the rest by zarrita.
    for (const node of got.nodes.filter((n) => n.kind === 'array')) {
      expect(node.undecodableCodecs).toEqual([]);
      for (const c of node.codecs) expect([c.name, c.decoder]).toEqual([c.name, PCODEC.has(c.name) ? 'numdecode' : 'zarrita']);
    }
  });

  test('agrees with the corpus manifest (shape, chunks, shards, dtype, fill value, codec, order)', async () => {
    const got = await list(path.join(storesDir, store));
    const arrays = manifest.filter((m) => m.store === store);
    expect(got.nodes.filter((n) => n.kind === 'array').map((n) => n.path).sort()).toEqual(arrays.map((m) => `/${m.array}`).sort());
    for (const m of arrays) {
      const node = got.nodes.find((n) => n.path === `/${m.array}`);
      expect(node).toMatchObject({ zarrFormat: m.zarr_format, shape: m.shape, chunks: m.chunks, dataType: m.dtype, fillValue: m.fill_value });
      expect(node.shards).toEqual(m.shards ?? null);
      if (m.index_location) expect(node.indexLocation).toBe(m.index_location);
      if (m.order) expect(node.order).toBe(m.order);
      const pcodec = node.codecs.find((c) => PCODEC.has(c.name));
      expect(pcodec.name).toBe(m.zarr_format === 2 ? 'pcodec' : m.codec_name);
      // v2 writes the compressor's id inside its configuration; list() names it `name`.
      expect(m.zarr_format === 2 ? { id: pcodec.name, ...pcodec.configuration } : pcodec.configuration).toEqual(m.codec_configuration);
    }
  });
});

test('the start-index shards and float16 are listed as they are (zarrita alone cannot read them; numdecode\'s read does)', async () => {
  const sharded = await list(path.join(storesDir, 'sharded_v3.zarr'));
  expect(sharded.nodes.find((n) => n.path === '/labels_index_start')).toMatchObject({ kind: 'array', indexLocation: 'start', shards: [256, 256], chunks: [64, 64] });
  const dtypes = await list(path.join(storesDir, 'dtypes_v3.zarr'));
  expect(dtypes.nodes.find((n) => n.path === '/float16')).toMatchObject({ dataType: 'float16', dtype: 'f16', undecodableCodecs: [] });
});

test('a zarrita store gives the same nodes; numdecode\'s LocalStore is walked like a directory', async () => {
  const dir = path.join(storesDir, 'sharded_v3.zarr');
  const byPath = await list(dir);
  const local = await list(new LocalStore(dir));
  expect(local.nodes).toEqual(byPath.nodes);
  expect(local.complete).toBe(true);
  // Another store (no consolidated metadata, nothing to walk): the root, then the arrays named.
  const other = await list(new FileSystemStore(dir), { name: 'sharded', hints: ['labels', 'no_such'] });
  expect(other.store).toBe('sharded');
  expect(other.complete).toBe(false);
  expect(other.nodes.map((n) => n.path)).toEqual(['/', '/labels']);
  expect(other.nodes[1]).toEqual(byPath.nodes.find((n) => n.path === '/labels'));
  // Consolidated: the whole hierarchy from the root document.
  const era5 = await list(new FileSystemStore(path.join(storesDir, 'era5_like_v3.zarr')));
  expect(era5.complete).toBe(true);
  expect(era5.nodes).toEqual((await list(path.join(storesDir, 'era5_like_v3.zarr'))).nodes);
});

test('v2 without consolidated metadata, groups in groups: the directory walked, each node as its files say', async () => {
  const src = path.join(storesDir, 'era5_like_v2.zarr');
  const dir = path.join(tmp, 'nested_v2.zarr');
  mkdirSync(path.join(dir, 'sub', 'lat'), { recursive: true });
  writeFileSync(path.join(dir, '.zgroup'), JSON.stringify({ zarr_format: 2 }));
  writeFileSync(path.join(dir, 'sub', '.zgroup'), JSON.stringify({ zarr_format: 2 }));
  writeFileSync(path.join(dir, 'sub', '.zattrs'), JSON.stringify({ title: 'inner' }));
  for (const f of ['.zarray', '.zattrs']) writeFileSync(path.join(dir, 'sub', 'lat', f), readFileSync(path.join(src, 'latitude', f)));
  const got = await list(dir);
  expect(got).toMatchObject({ kind: 'group', zarrFormat: 2, consolidated: false, complete: true, errors: [] });
  expect(got.nodes.map((n) => [n.path, n.kind])).toEqual([['/', 'group'], ['/sub', 'group'], ['/sub/lat', 'array']]);
  expect(got.nodes[1].attributes).toEqual({ title: 'inner' });
  const latitude = (await list(src)).nodes.find((n) => n.path === '/latitude');
  expect(got.nodes[2]).toEqual({ ...latitude, path: '/sub/lat' });
  // Through a store that cannot be listed, only what is named: the root and the hinted array.
  const named = await list(new FileSystemStore(dir), { hints: ['sub/lat'] });
  expect(named.complete).toBe(false);
  expect(named.nodes.map((n) => n.path)).toEqual(['/', '/sub/lat']);
});

describe('over HTTP', () => {
  const serveStores = (req, res) => serveDirectory(req, res, storesDir);

  test('consolidated v3 and v2: the whole hierarchy in one round trip, the same as from the directory', async () => {
    for (const store of ['era5_like_v3.zarr', 'era5_like_v2.zarr']) {
      server.handler = serveStores;
      server.delay = 40;
      const got = await list(`${server.base}/${store}/`);
      expect(server.state.waves).toBe(1);
      expect(got).toMatchObject({ store: `${server.base}/${store}/`, consolidated: true, complete: true });
      expect(got.nodes).toEqual((await list(path.join(storesDir, store))).nodes);
    }
    server.delay = 0;
  });

  test('without consolidated metadata: the root, the hints and the arrays their dimension names name; complete false', async () => {
    server.handler = serveStores;
    const got = await list(`${server.base}/sharded_v3.zarr`, { hints: ['counts'] });
    expect(got.complete).toBe(false);
    expect(got.nodes.map((n) => n.path)).toEqual(['/', '/counts']);
    // counts' dimension names (y, x) were probed as arrays beside it: not there.
    const asked = server.state.log.map((r) => new URL(r.url, 'http://x').pathname);
    expect(asked).toEqual(expect.arrayContaining(['/sharded_v3.zarr/y/zarr.json', '/sharded_v3.zarr/x/zarr.json']));
  });

  test('a URL with no Zarr store: ERR_NOT_FOUND; a server error: ERR_NETWORK with the status', async () => {
    server.handler = serveStores;
    const gone = await list(`${server.base}/no_such.zarr`).catch((e) => e);
    expect(gone).toBeInstanceOf(ZarrError);
    expect(gone).toMatchObject({ code: 'ERR_NOT_FOUND', file: `${server.base}/no_such.zarr` });
    server.handler = (req, res) => {
      res.writeHead(503);
      res.end();
    };
    const down = await list(`${server.base}/era5_like_v3.zarr`).catch((e) => e);
    expect(down).toBeInstanceOf(ZarrError);
    expect(down).toMatchObject({ code: 'ERR_NETWORK', status: 503, file: `${server.base}/era5_like_v3.zarr` });
    expect(down.message).toMatch(/^zarr: cannot read http:.*503/);
  });

  test('an aborted signal: ERR_ABORTED, before or while the root is asked for', async () => {
    server.handler = serveStores;
    const before = new AbortController();
    before.abort();
    await expect(list(`${server.base}/era5_like_v3.zarr`, { signal: before.signal })).rejects.toMatchObject({ name: 'ZarrError', code: 'ERR_ABORTED' });
    expect(server.state.log).toEqual([]);
    server.delay = 200;
    const during = new AbortController();
    const pending = list(`${server.base}/era5_like_v3.zarr`, { signal: during.signal });
    setTimeout(() => during.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: 'ZarrError', code: 'ERR_ABORTED' });
    server.delay = 0;
  });
});

describe('errors', () => {
  test('a store that is not there: ZarrError ERR_NOT_FOUND naming it', async () => {
    const missing = path.join(zarrDir, 'stores', 'no_such.zarr');
    const err = await list(missing).catch((e) => e);
    expect(err).toBeInstanceOf(ZarrError);
    expect(err).toBeInstanceOf(NumdecodeError);
    expect(ZarrError).toBe(BaseZarrError);
    expect(err).toMatchObject({ name: 'ZarrError', code: 'ERR_NOT_FOUND', file: missing, message: `zarr: not found: ${missing}` });
  });

  test('a folder that is not Zarr, and a file: ERR_BAD_DATA naming them', async () => {
    const folder = path.join(zarrDir, 'expected');
    const err = await list(folder).catch((e) => e);
    expect(err).toBeInstanceOf(ZarrError);
    expect(err).toMatchObject({ code: 'ERR_BAD_DATA', file: folder });
    expect(err.message).toMatch(/is not a Zarr group or array \(no readable zarr\.json, \.zgroup or \.zarray\)/);
    const file = path.join(zarrDir, 'README.md');
    await expect(list(file)).rejects.toMatchObject({ name: 'ZarrError', code: 'ERR_BAD_DATA', file, message: expect.stringMatching(/is not a directory/) });
    await expect(list(42)).rejects.toThrow(TypeError);
  });

  test('bad JSON: at the root the call fails naming the key; in an array the others are still listed', async () => {
    const dir = path.join(tmp, 'bad.zarr');
    mkdirSync(path.join(dir, 'a'), { recursive: true });
    mkdirSync(path.join(dir, 'b'), { recursive: true });
    writeFileSync(path.join(dir, 'zarr.json'), JSON.stringify({ zarr_format: 3, node_type: 'group', attributes: { title: 't' } }));
    writeFileSync(path.join(dir, 'a/zarr.json'), '{"zarr_format": 3, "node_type": "array",');
    writeFileSync(path.join(dir, 'b/zarr.json'), readFileSync(path.join(storesDir, 'era5_like_v3.zarr/latitude/zarr.json')));
    const got = await list(dir);
    expect(got.nodes.map((n) => n.path)).toEqual(['/', '/b']);
    expect(got.nodes[0]).toEqual({ kind: 'group', path: '/', zarrFormat: 3, attributes: { title: 't' } });
    expect(got.errors).toHaveLength(1);
    expect(got.errors[0]).toBeInstanceOf(ZarrError);
    expect(got.errors[0]).toMatchObject({ code: 'ERR_BAD_DATA', file: '/a/zarr.json' });
    writeFileSync(path.join(dir, 'zarr.json'), '{');
    await expect(list(dir)).rejects.toMatchObject({ name: 'ZarrError', code: 'ERR_BAD_DATA', file: '/zarr.json', message: expect.stringMatching(/^zarr: \/zarr\.json in .*bad\.zarr is not valid JSON/) });
  });

  test('a codec nothing here decodes is named, as the CLI names it', async () => {
    const dir = fpzipStore();
    const got = await list(dir);
    expect(got.kind).toBe('array');
    expect(got.nodes).toHaveLength(1);
    expect(got.nodes[0]).toMatchObject({ path: '/', kind: 'array', undecodableCodecs: ['numcodecs.fpzip'] });
    expect(got.nodes[0].codecs.map((c) => [c.name, c.decoder])).toEqual([['bytes', 'zarrita'], ['numcodecs.fpzip', null]]);
  });
});

describe('openArray(): an array for read(), with the same guards', () => {
  beforeAll(() => init());
  const expected = (store, array) => readBytes(zarrDir, manifest.find((m) => m.store === store && m.array === array).bin);
  const bytes = (data) => new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

  test('float16 opens where zarrita alone cannot (no Float16Array: as its bits) and reads the expected values', async () => {
    const arr = await openArray(path.join(storesDir, 'dtypes_v3.zarr'), 'float16');
    const { data, shape } = await read(arr);
    expect(shape).toEqual([5000]);
    // The same 16 bits per value either way: a Float16Array where the engine has one, else a Uint16Array of the bits.
    expect(data.constructor.name).toBe(typeof globalThis.Float16Array === 'function' ? 'Float16Array' : 'Uint16Array');
    expect(Buffer.from(bytes(data)).equals(Buffer.from(expected('dtypes_v3.zarr', 'float16')))).toBe(true);
  });

  test('a shard index at the start, from a directory and over HTTP, reads the expected values', async () => {
    const want = new Uint32Array(expected('sharded_v3.zarr', 'labels_index_start').slice().buffer);
    const local = await read(await openArray(path.join(storesDir, 'sharded_v3.zarr'), '/labels_index_start'));
    expect(local.shape).toEqual([600, 700]);
    expect(Buffer.from(bytes(local.data)).equals(Buffer.from(bytes(want)))).toBe(true);
    server.handler = (req, res) => serveDirectory(req, res, storesDir);
    const remote = await openArray(`${server.base}/sharded_v3.zarr`, 'labels_index_start');
    const box = await read(remote, { selection: [{ start: 250, stop: 262 }, { start: 500, stop: 520 }] });
    expect(box.shape).toEqual([12, 20]);
    for (let r = 0; r < 12; r++) expect(Array.from(box.data.subarray(r * 20, r * 20 + 20))).toEqual(Array.from(want.subarray((250 + r) * 700 + 500, (250 + r) * 700 + 520)));
  });

  test('not there, a group, an undecodable codec: ZarrError naming the array and the store', async () => {
    const store = path.join(storesDir, 'sharded_v3.zarr');
    await expect(openArray(store, 'no_such')).rejects.toMatchObject({ name: 'ZarrError', code: 'ERR_NOT_FOUND', array: '/no_such', file: store });
    await expect(openArray(store, '/')).rejects.toMatchObject({ name: 'ZarrError', code: 'ERR_BAD_DATA', array: '/', message: expect.stringMatching(/is a group, not an array/) });
    await expect(openArray(path.join(storesDir, 'no_such.zarr'), 'a')).rejects.toMatchObject({ name: 'ZarrError', code: 'ERR_NOT_FOUND' });
    await expect(openArray(fpzipStore(), '/')).rejects.toMatchObject({ name: 'ZarrError', code: 'ERR_UNSUPPORTED', array: '/', message: expect.stringMatching(/numcodecs\.fpzip, which neither numdecode nor zarrita decodes/) });
    await expect(openArray(store)).rejects.toThrow(TypeError);
  });
});

test('consolidated metadata with a null or string entry is a ZarrError naming the store (zarrita threw a TypeError listing it)', async () => {
  const src = JSON.parse(readFileSync(path.join(zarrDir, 'stores', 'era5_like_v3.zarr', 'zarr.json'), 'utf8'));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'numdecode-bad-consolidated-'));
  try {
    for (const entry of [null, 'abc']) {
      const doc = structuredClone(src);
      doc.consolidated_metadata.metadata.t2m = entry;
      writeFileSync(path.join(dir, 'zarr.json'), JSON.stringify(doc));
      const err = await list(dir).catch((e) => e);
      expect(err).toBeInstanceOf(ZarrError);
      expect(err).toMatchObject({ code: 'ERR_BAD_DATA', file: expect.stringContaining(dir) });
      expect(err.message).toMatch(/its consolidated metadata is damaged/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
