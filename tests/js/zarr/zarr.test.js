// numdecode/zarr: zarrita reads Zarr v2 and v3 arrays whose chunks are numcodecs pcodec (Pco)
// files, over HTTP from a local server, and gets the corpus values bit for bit.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as zarr from 'zarrita';
import { init } from '../../../js/index.js';
import { PCODEC_CODEC_NAMES, PcodecCodec, pcodecCodecEntry, registerPcodec } from '../../../js/zarr.js';
import { createWorkerPool } from '../../../js/worker/index.js';
import { createStaticServer } from '../../../scripts/serve.mjs';
import { expectSameBytes, pcoDir, readBytes } from '../helpers/corpus.js';
import { readStore } from './zarr-read.js';
import { buildStore, expectSameValues } from '../helpers/zarr-store.js';

let dir;
let server;
let baseUrl;
let store;
let requests = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'numdecode-zarr-'));
  store = buildStore(dir);
  server = createStaticServer({ mounts: [['/', dir]] });
  server.on('request', (req) => requests.push({ method: req.method, url: req.url, range: req.headers.range }));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${server.address().port}/`;
  registerPcodec(zarr.registry);
  await init();
});

afterAll(async () => {
  if (server) await new Promise((resolve) => server.close(resolve));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const cases = () => ({
  arrays: store.arrays.map(({ path: p, dataType }) => ({ path: p, dataType })),
  failures: store.failures,
});

function expectArraysMatch(result) {
  expect(result.arrays.map((a) => a.path)).toEqual(store.arrays.map((a) => a.path));
  for (const [i, got] of result.arrays.entries()) {
    const want = store.arrays[i];
    if (got.skipped) {
      expect(want.dataType).toBe('float16');
      continue;
    }
    expect({ path: got.path, dtype: got.dtype, shape: got.shape }).toEqual({
      path: want.path,
      dtype: want.dataType,
      shape: want.shape,
    });
    expectSameValues(got.bytes, want.expected, want.dataType, want.path);
  }
  // The v2 order "F" array came back in Fortran order (zarrita's transpose after our codec).
  const fortran = result.arrays.find((a) => a.path === 'v2/i32_fortran');
  expect(fortran.stride).toEqual([1, 50]);
}

test('the codec registers under both names zarr-python writers use', () => {
  expect(PCODEC_CODEC_NAMES).toEqual(['numcodecs.pcodec', 'pcodec']);
  for (const name of PCODEC_CODEC_NAMES) expect(typeof zarr.registry.get(name)).toBe('function');
  expect(() => registerPcodec(undefined)).toThrow(/zarrita's codec registry/);
});

test('every array reads bit-exactly through FetchStore (v2 and v3, 1-D and 2-D, sharded, F order, fill)', async () => {
  requests = [];
  const result = await readStore(zarr, baseUrl, cases());
  expectArraysMatch(result);
  // The sharded array was read with range requests (after a HEAD for its size: the index at the
  // end, then each inner chunk), never as a whole file.
  const shardGets = requests.filter((r) => r.url === '/v3/sharded_f32/c/0' && r.method === 'GET');
  expect(shardGets.length).toBe(3);
  expect(shardGets.every((r) => /^bytes=\d+-\d+$/.test(r.range))).toBe(true);
  // The v2 row without a chunk was asked for and answered 404 (its values are the fill value).
  expect(requests.some((r) => r.url === '/v2/f64_rows/2.0')).toBe(true);
});

test('a selection across chunk boundaries', async () => {
  const arr = await zarr.open(zarr.root(new zarr.FetchStore(baseUrl)).resolve('v3/consec_i64'), { kind: 'array' });
  const got = await zarr.get(arr, [zarr.slice(25, 195), zarr.slice(10, 20)]);
  expect(got.shape).toEqual([170, 10]);
  const all = new BigInt64Array(store.arrays.find((a) => a.path === 'v3/consec_i64').expected.slice().buffer);
  const want = new BigInt64Array(170 * 10);
  for (let i = 0; i < 170; i++) for (let j = 0; j < 10; j++) want[i * 10 + j] = all[(25 + i) * 100 + 10 + j];
  expect(got.data).toBeInstanceOf(BigInt64Array);
  expect(Array.from(got.data)).toEqual(Array.from(want));
});

test('chunks that do not match their metadata fail with messages that say why', async () => {
  const { failures } = await readStore(zarr, baseUrl, { arrays: [], failures: store.failures });
  for (const [i, f] of failures.entries()) {
    expect(f.path).toBe(store.failures[i].path);
    expect(f.error).toContain(store.failures[i].message);
  }
  // The damaged chunk's error carries the Pco decoder's own reason.
  const damaged = failures.find((f) => f.path === 'v2/damaged').error;
  expect(damaged).toMatch(/Failed to decode chunk via codec "numcodecs.pcodec" <- PcoError: \S.+/);
});

test('float16 chunks decode to Float16Array where it exists, else to the raw bits', async () => {
  const codec = PcodecCodec.fromConfig({ level: 8 }, { dataType: 'float16', shape: [1000], codecs: [] });
  const chunk = await codec.decode(readBytes(pcoDir, 'classic_f16_n1000.pco'));
  expect(chunk.shape).toEqual([1000]);
  expect(chunk.stride).toEqual([1]);
  const want = readBytes(pcoDir, 'classic_f16_n1000.bin');
  expect(chunk.data.constructor).toBe(globalThis.Float16Array ?? Uint16Array);
  expectSameBytes(new Uint8Array(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength), want, 'f16 chunk');
});

describe('the codec object', () => {
  const meta = { dataType: 'int32', shape: [50, 100], codecs: [] };

  test('keeps the encoder configuration as written and ignores it for decoding', async () => {
    const config = {
      level: 12,
      mode_spec: 'classic',
      delta_spec: 'try_lookback',
      paging_spec: 'equal_pages_up_to',
      delta_encoding_order: 3,
      equal_pages_up_to: 1000,
      some_future_field: true,
    };
    const codec = PcodecCodec.fromConfig(config, meta);
    expect(codec.kind).toBe('array_to_bytes');
    expect(codec.configuration).toEqual(config);
    const chunk = await codec.decode(readBytes(pcoDir, 'intmult_i32_mult7.pco'));
    expect(chunk.stride).toEqual([100, 1]);
    expectSameBytes(new Uint8Array(chunk.data.buffer), readBytes(pcoDir, 'intmult_i32_mult7.bin'), 'int32 chunk');
    expect(PcodecCodec.fromConfig(undefined, meta).configuration).toEqual({});
  });

  test('keeps NaN payloads, signaling NaNs included, bit for bit', async () => {
    const codec = PcodecCodec.fromConfig({}, { dataType: 'float32', shape: [3000], codecs: [] });
    const chunk = await codec.decode(readBytes(pcoDir, 'special_f32_auto.pco'));
    const want = readBytes(pcoDir, 'special_f32_auto.bin');
    expectSameBytes(new Uint8Array(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength), want, 'f32 chunk');
    // The file has signaling NaNs, so the zarrita comparison above really allows something.
    const words = new Uint32Array(want.slice().buffer);
    expect(words.some((w) => (w & 0x7fc00000) === 0x7f800000 && (w & 0x003fffff) !== 0)).toBe(true);
  });

  test("zarrita 0.6's chunk metadata (data_type, what fizarrita's workers pass) decodes the same", async () => {
    const codec = PcodecCodec.fromConfig({}, { data_type: 'float32', shape: [3000], codecs: [] });
    const chunk = await codec.decode(readBytes(pcoDir, 'special_f32_auto.pco'));
    expectSameBytes(new Uint8Array(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength), readBytes(pcoDir, 'special_f32_auto.bin'), 'f32 chunk');
    expect(() => PcodecCodec.fromConfig({}, { data_type: 'bool', shape: [3], codecs: [] })).toThrow(/data type "bool" is not one Pco stores/);
  });

  test('rejects metadata it cannot decode', () => {
    expect(() => PcodecCodec.fromConfig('level=8', meta)).toThrow(/configuration must be a JSON object/);
    expect(() => PcodecCodec.fromConfig({}, { ...meta, dataType: 'bool' })).toThrow(/data type "bool" is not one Pco stores/);
    expect(() => PcodecCodec.fromConfig({}, { ...meta, dataType: 'complex64' })).toThrow(/not one Pco stores/);
  });

  test("encodes only its shape's values, in C order (zarr.set itself: pcodec-encode.test.js)", async () => {
    const codec = PcodecCodec.fromConfig({}, meta);
    await expect(codec.encode({ data: new Int32Array(2), shape: [3], stride: [1] })).rejects.toThrow(/got 2 values for a chunk of shape \[3\] \(3\)/);
    await expect(codec.encode({ data: [1, 2, 3], shape: [3], stride: [1] })).rejects.toThrow(/values in a typed array, got Array/);
    await expect(codec.encode({ data: new Int32Array(4), shape: [2, 2], stride: [1, 2] })).rejects.toThrow(/C order/);
  });

  test('a registry entry with options binds them', async () => {
    const registry = new Map();
    registerPcodec(registry, { init: { simd: 'auto' } });
    const entry = await registry.get('pcodec')();
    expect(entry.kind).toBe('array_to_bytes');
    expect(entry.fromConfig({}, meta)).toBeInstanceOf(PcodecCodec);
    expect(pcodecCodecEntry().kind).toBe('array_to_bytes');
  });
});

describe('decoding chunks in a worker pool', () => {
  let pool;
  beforeAll(async () => {
    pool = await createWorkerPool({ size: 2 });
    registerPcodec(zarr.registry, { pool });
  });
  afterAll(async () => {
    registerPcodec(zarr.registry);
    await pool.terminate();
  });

  test('every array reads bit-exactly, and the pool did the decoding', async () => {
    const before = pool.stats().completed;
    const result = await readStore(zarr, baseUrl, cases());
    expectArraysMatch(result);
    // consec_i64 alone has 7 chunks; every chunk of every array went through the pool.
    expect(pool.stats().completed - before).toBeGreaterThanOrEqual(7 + 10 + 1 + 2 + 2 + 1 + 2);
  });

  test('metadata mismatches still fail with the same messages', async () => {
    const { failures } = await readStore(zarr, baseUrl, { arrays: [], failures: store.failures });
    for (const [i, f] of failures.entries()) expect(f.error).toContain(store.failures[i].message);
  });
});
