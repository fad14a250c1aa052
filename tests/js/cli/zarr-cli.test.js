// `numdecode zarr STORE` (the hierarchy) and `numdecode zarr STORE --array PATH [--range] [--to]`
// on the corpus stores written with the reference pcodec (../shared/corpus/zarr-pcodec), checked
// against the expected arrays (bytes or SHA-256, as the corpus README says).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createStaticServer } from '../../../scripts/serve.mjs';
import { runCli } from '../helpers/cli-process.js';
import { corpusRoot, sha256 } from '../helpers/corpus.js';
import { readNpy } from '../../../js/cli/npy.js';
import { run } from '../../../js/cli/zarr.js';
import { openZarr } from '../../../js/zarr-explore/explorer.js';
import { parseSlice, chunkRanges, chunkCount } from '../../../js/zarr-explore/slice.js';
import { NumdecodeError } from '../../../js/errors.js';
import { crc32c } from '../helpers/zarr-store.js';

const zarrDir = path.join(corpusRoot, 'zarr-pcodec');
const storeDir = (store) => path.join(zarrDir, 'stores', store);
const manifest = JSON.parse(readFileSync(path.join(zarrDir, 'expected/manifest.json'), 'utf8'));
const entry = (store, array) => manifest.find((m) => m.store === store && m.array === array);
const TYPED = {
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, float16: Uint16Array,
  int32: Int32Array, uint32: Uint32Array, float32: Float32Array, int64: BigInt64Array, uint64: BigUint64Array, float64: Float64Array,
};

/** Runs the command in this process; resolves to what it wrote, as a Buffer. */
async function runZarr(...args) {
  const parts = [];
  const out = new Writable({
    write(chunk, _enc, done) {
      parts.push(Buffer.from(chunk));
      done();
    },
  });
  await run(args, out);
  return Buffer.concat(parts);
}

// A user's run: a child process (exit code, stderr). Async: the HTTP server lives in this process.
const cli = runCli;

// The full array, read back with the CLI and checked against its SHA-256 (and bytes when stored).
const fullArrays = new Map();
async function fullArray(store, array) {
  const key = `${store}/${array}`;
  if (!fullArrays.has(key)) {
    const m = entry(store, array);
    const bytes = await runZarr(storeDir(store), '--array', array, '--to', 'bin');
    expect(sha256(bytes)).toBe(m.sha256_of_bin);
    const copy = new Uint8Array(bytes).buffer;
    fullArrays.set(key, new TYPED[m.dtype](copy));
  }
  return fullArrays.get(key);
}

// The C-order values of a box [starts, stops) of an array held in C order.
function box(full, shape, starts, stops) {
  const out = [];
  const idx = [...starts];
  const strides = shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
  for (let guard = 0; guard < 1e7; guard++) {
    out.push(full[idx.reduce((s, i, d) => s + i * strides[d], 0)]);
    let d = shape.length - 1;
    for (; d >= 0; d--) {
      if (++idx[d] < stops[d]) break;
      idx[d] = starts[d];
    }
    if (d < 0) break;
  }
  return out;
}

const csvCells = (text) => text.trim().split('\n').map((line) => line.split(','));

let server;
let base;
let tmp;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'zarr-cli-'));
  server = createStaticServer({ mounts: [['/', path.join(zarrDir, 'stores')]] });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});

afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
  await new Promise((resolve) => server.close(resolve));
});

describe('every corpus array, read whole, matches the expected bytes', () => {
  test.each(manifest.map((m) => [m.store, m.array]))('%s %s', async (store, array) => {
    const m = entry(store, array);
    const got = await fullArray(store, array);
    if (m.bin) expect(Buffer.from(got.buffer).equals(readFileSync(path.join(zarrDir, m.bin)))).toBe(true);
    expect(got.length).toBe(m.shape.reduce((a, b) => a * b, 1));
  });
});

test('CSV slices: missing chunk as the fill value NaN, v2 order F equal to the C-order v3 copy', async () => {
  const shape = [24, 181, 360];
  const t2m = await fullArray('era5_like_v3.zarr', 't2m');
  // Chunk (5, 1, 0) is missing: rows 91..180, columns 0..179 of time 5 read as NaN.
  const missing = csvCells((await runZarr(storeDir('era5_like_v3.zarr'), '--array', 't2m', '--range', '5,91:181,0:180', '--to', 'csv')).toString());
  expect(missing.length).toBe(90);
  expect(missing.every((row) => row.length === 180 && row.every((c) => c === 'NaN'))).toBe(true);
  const cells = csvCells((await runZarr(storeDir('era5_like_v3.zarr'), '--array', 't2m', '--range', '5,80:100,170:190', '--to', 'csv')).toString());
  const want = box(t2m, shape, [5, 80, 170], [6, 100, 190]);
  const got = cells.flat().map((c) => Math.fround(Number(c)));
  expect(got.length).toBe(400);
  got.forEach((v, i) => expect(Object.is(v, want[i]) || (Number.isNaN(v) && Number.isNaN(want[i]))).toBe(true));
  expect(got.filter(Number.isNaN).length).toBeGreaterThan(0); // the missing chunk's corner
  expect(got.filter((v) => !Number.isNaN(v)).length).toBeGreaterThan(0);
  // tp: v2 with order "F" against v3 (C order), same data.
  const tp = await fullArray('era5_like_v3.zarr', 'tp');
  const f = (await runZarr(storeDir('era5_like_v2.zarr'), '--array', 'tp', '--range', '13,60:70,120:140', '--to', 'csv')).toString();
  const c = (await runZarr(storeDir('era5_like_v3.zarr'), '--array', 'tp', '--range', '13,60:70,120:140', '--to', 'csv')).toString();
  expect(f).toBe(c);
  expect(csvCells(f).flat().map((x) => Math.fround(Number(x)))).toEqual(box(tp, shape, [13, 60, 120], [14, 70, 140]));
});

test('steps and negative bounds select what NumPy would', async () => {
  const labels = await fullArray('sharded_v3.zarr', 'labels');
  const rows = csvCells((await runZarr(storeDir('sharded_v3.zarr'), '--array', 'labels', '--range=-5::2,10:700:233', '--to', 'csv')).toString());
  const want = [595, 597, 599].map((r) => [10, 243, 476].map((c) => String(labels[r * 700 + c])));
  expect(rows).toEqual(want);
});

test('JSON: int64 and uint64 as decimal strings, float16 as the numbers its bits stand for', async () => {
  const time = await fullArray('era5_like_v3.zarr', 'time');
  const j = JSON.parse(await runZarr(storeDir('era5_like_v2.zarr'), '--array', 'time', '--range', '2:7', '--to', 'json'));
  expect(j).toMatchObject({ array: '/time', data_type: 'int64', shape: [5], slice: '2:7' });
  expect(j.values).toEqual([...time.subarray(2, 7)].map(String));
  const u64 = await fullArray('dtypes_v3.zarr', 'uint64');
  const ju = JSON.parse(await runZarr(storeDir('dtypes_v3.zarr'), '--array', 'uint64', '--range=-10:', '--to', 'json'));
  expect(ju.values).toEqual([...u64.subarray(4990)].map(String));
  expect(ju.values.some((v) => BigInt(v) > BigInt(Number.MAX_SAFE_INTEGER))).toBe(true);
  // One index per dimension: a single value (shape []), in the array's own type.
  const scalar = JSON.parse(await runZarr(storeDir('dtypes_v3.zarr'), '--array', 'uint64', '--range', '2047', '--to', 'json'));
  expect(scalar).toMatchObject({ shape: [], values: [String(u64[2047])] });
  expect(Buffer.from(await runZarr(storeDir('dtypes_v3.zarr'), '--array', 'uint64', '--range', '2047', '--to', 'bin')).equals(Buffer.from(u64.buffer, 2047 * 8, 8))).toBe(true);
  // float16 bits from the expected file, decoded here by a DataView-free reference: sign, exponent, fraction.
  const bits = await fullArray('dtypes_v3.zarr', 'float16');
  const half = (b) => (b & 0x8000 ? -1 : 1) * (((b >> 10) & 31) === 0 ? (b & 1023) / 1024 * 2 ** -14 : (1 + (b & 1023) / 1024) * 2 ** (((b >> 10) & 31) - 15));
  const jf = JSON.parse(await runZarr(storeDir('dtypes_v3.zarr'), '--array', 'float16', '--range', '2040:2060', '--to', 'json'));
  expect(jf.values).toEqual([...bits.subarray(2040, 2060)].map(half));
});

test('a shard index at the start reads as the same array indexed at the end; --workers decodes in worker threads', async () => {
  const labels = await fullArray('sharded_v3.zarr', 'labels');
  const start = await runZarr(storeDir('sharded_v3.zarr'), '--array', 'labels_index_start', '--range', '100:500,7:650:3', '--to', 'bin');
  const end = await runZarr(storeDir('sharded_v3.zarr'), '--array', 'labels', '--range', '100:500,7:650:3', '--to', 'bin');
  expect(start.equals(end)).toBe(true);
  expect(new Uint32Array(start.buffer, start.byteOffset, 1)[0]).toBe(labels[100 * 700 + 7]);
  const file = path.join(tmp, 'labels_index_start.bin');
  const r = await cli('zarr', storeDir('sharded_v3.zarr'), '--array', 'labels_index_start', '--workers', '2', '-o', file);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  expect(sha256(readFileSync(file))).toBe(entry('sharded_v3.zarr', 'labels_index_start').sha256_of_bin);
  await expect(runZarr(storeDir('sharded_v3.zarr'), '--workers', '2')).rejects.toThrow(/--workers needs --array/);
  await expect(runZarr(storeDir('sharded_v3.zarr'), '--array', 'labels', '--workers', '0')).rejects.toThrow(/--workers must be an integer/);
});

test('the listing names every array with shape, data type, chunks, shards and codecs', async () => {
  const local = (await runZarr(storeDir('sharded_v3.zarr'))).toString();
  expect(local).toMatch(/no consolidated metadata/);
  expect(local).toMatch(/^\/counts {2}uint16 \[2048, 2048\] chunks \[256, 256\] shards \[1024, 1024\] dims \(y, x\)/m);
  expect(local).toMatch(/^\/labels {2}uint32 \[600, 700\] chunks \[64, 64\] shards \[256, 256\]/m);
  expect(local).toMatch(/inner codec pcodec \(numdecode\)/);
  expect(local).not.toMatch(/cannot be read here/);
  const v2 = JSON.parse(await runZarr(storeDir('era5_like_v2.zarr'), '--json'));
  expect(v2).toMatchObject({ zarrFormat: 2, kind: 'group', consolidated: true });
  const t2m = v2.nodes.find((n) => n.path === '/t2m').description;
  expect(t2m).toMatchObject({ shape: [24, 181, 360], dataType: 'float32', dtype: 'f32', v2Dtype: '<f4', chunks: [1, 91, 180], chunkKeyEncoding: { name: 'v2', separator: '.' }, fillValue: 'NaN', dimensionNames: ['time', 'latitude', 'longitude'] });
  expect(t2m.codecs).toEqual([expect.objectContaining({ name: 'pcodec', role: 'compressor', decoder: 'numdecode' })]);
  expect(v2.nodes.find((n) => n.path === '/tp').description.order).toBe('F');
  const v3 = JSON.parse(await runZarr(storeDir('era5_like_v3.zarr'), '--json'));
  expect(v3.nodes.map((n) => n.path)).toEqual(['/', '/latitude', '/longitude', '/t2m', '/time', '/tp']);
  expect(v3.nodes.find((n) => n.path === '/tp').description.chunkKeyEncoding).toEqual({ name: 'v2', separator: '.' });
});

test('over HTTP: consolidated listing, a slice equal to the local one, children of an unconsolidated group by --hint', async () => {
  const r = await cli('zarr', `${base}/era5_like_v3.zarr`, '--array', 't2m', '--range', '0,0:3,0:4', '--to', 'csv');
  expect(r.stderr).toBe('');
  expect(r.stdout).toBe((await runZarr(storeDir('era5_like_v3.zarr'), '--array', 't2m', '--range', '0,0:3,0:4', '--to', 'csv')).toString());
  const list = await cli('zarr', `${base}/sharded_v3.zarr`, '--hint', 'labels');
  expect(list.status).toBe(0);
  expect(list.stdout).toMatch(/^\/labels {2}uint32 \[600, 700\]/m);
  expect(list.stdout).not.toMatch(/^\/counts/m);
  expect(list.stdout).toMatch(/cannot list its children/);
});

test('a slice fetches only the chunks it covers (and asks for a missing one once)', async () => {
  const store = await openZarr(storeDir('era5_like_v3.zarr'));
  const before = store.stats.chunkRequests;
  // time 4..5, all latitudes, longitudes 100..199: chunks (4..5) x (0..1) x (0..1) = 8; (5,1,0) is missing.
  const parsed = parseSlice('4:6,:,100:200', [24, 181, 360]);
  expect(chunkCount(chunkRanges(parsed, [1, 91, 180]))).toBe(8);
  const got = await store.read('/t2m', parsed);
  expect(got.shape).toEqual([2, 181, 100]);
  expect(store.stats.chunkRequests - before).toBe(8);
  expect(new Set(store.stats.keys.slice(-8))).toEqual(new Set(['/t2m/c/4/0/0', '/t2m/c/4/0/1', '/t2m/c/4/1/0', '/t2m/c/4/1/1', '/t2m/c/5/0/0', '/t2m/c/5/0/1', '/t2m/c/5/1/0', '/t2m/c/5/1/1']));
  // Sharded: the shard's index once, then one range per inner chunk.
  const sharded = await openZarr(storeDir('sharded_v3.zarr'));
  const s0 = sharded.stats.chunkRequests;
  await sharded.read('/counts', '300:600,1000:1100');
  // inner chunks rows 1..2 x columns 3..4 (4 chunks) in shards (0,0) and (0,1): 2 indexes + 4 chunks.
  expect(sharded.stats.chunkRequests - s0).toBe(6);
});

test('one pcodec chunk as its stored Pco file; a missing chunk is null', async () => {
  const store = await openZarr(storeDir('era5_like_v3.zarr'));
  const bytes = await store.chunkBytes('/t2m', [3, 1, 1]);
  expect(Buffer.from(bytes).equals(readFileSync(path.join(storeDir('era5_like_v3.zarr'), 't2m/c/3/1/1')))).toBe(true);
  expect(await store.chunkBytes('/t2m', [5, 1, 0])).toBeNull();
  const sharded = await openZarr(storeDir('sharded_v3.zarr'));
  const inner = await sharded.chunkBytes('/labels', [4, 9]);
  expect(new TextDecoder().decode(inner.subarray(0, 4))).toBe('pco!');
});

test('a damaged pcodec chunk: the decoder message, the codec and the chunk named', async () => {
  const src = storeDir('era5_like_v3.zarr');
  const dir = path.join(tmp, 'damaged.zarr');
  mkdirSync(path.join(dir, 'latitude/c'), { recursive: true });
  writeFileSync(path.join(dir, 'zarr.json'), JSON.stringify({ zarr_format: 3, node_type: 'group', attributes: {} }));
  copyFileSync(path.join(src, 'latitude/zarr.json'), path.join(dir, 'latitude/zarr.json'));
  writeFileSync(path.join(dir, 'latitude/c/0'), readFileSync(path.join(src, 'latitude/c/0')).subarray(0, 100));
  const err = await runZarr(dir, '--array', 'latitude').catch((e) => e);
  expect(err).toBeInstanceOf(NumdecodeError);
  expect(err.code).toBe('ERR_BAD_DATA');
  expect(err.dataset).toBe('/latitude');
  expect(err.file).toBe('/latitude/c/0');
  expect(err.message).toMatch(/^zarr read: array \/latitude: chunk \/latitude\/c\/0: .*insufficient data/);
});

test('a codec nobody here decodes is named, in the listing and when reading', async () => {
  const dir = path.join(tmp, 'other.zarr');
  mkdirSync(path.join(dir, 'a'), { recursive: true });
  writeFileSync(path.join(dir, 'zarr.json'), JSON.stringify({ zarr_format: 3, node_type: 'group', attributes: {} }));
  writeFileSync(path.join(dir, 'a/zarr.json'), JSON.stringify({
    zarr_format: 3, node_type: 'array', shape: [10], data_type: 'float32',
    chunk_grid: { name: 'regular', configuration: { chunk_shape: [10] } },
    chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
    fill_value: 0, codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'numcodecs.fpzip', configuration: {} }],
  }));
  const list = (await runZarr(dir)).toString();
  expect(list).toMatch(/numcodecs\.fpzip \(NOT DECODABLE here\)/);
  expect(list).toMatch(/codecs nothing here decodes: numcodecs\.fpzip/);
  const err = await runZarr(dir, '--array', 'a').catch((e) => e);
  expect(err).toBeInstanceOf(NumdecodeError);
  expect(err.code).toBe('ERR_UNSUPPORTED');
  expect(err.message).toMatch(/array \/a .*numcodecs\.fpzip/);
});

test('a shard index claiming a terabyte-long chunk is refused by name, without allocating it', async () => {
  // The corpus labels array with shard (0, 0) changed: inner chunk 0 claims 2^40 bytes (CRC-32C
  // recomputed, so only the length is wrong).
  const src = storeDir('sharded_v3.zarr');
  const dir = path.join(tmp, 'bad_index.zarr');
  mkdirSync(path.join(dir, 'labels/c/0'), { recursive: true });
  copyFileSync(path.join(src, 'zarr.json'), path.join(dir, 'zarr.json'));
  copyFileSync(path.join(src, 'labels/zarr.json'), path.join(dir, 'labels/zarr.json'));
  const shard = new Uint8Array(readFileSync(path.join(src, 'labels/c/0/0')));
  const indexAt = shard.length - (16 * 16 + 4);
  const view = new DataView(shard.buffer, shard.byteOffset, shard.byteLength);
  view.setBigUint64(indexAt + 8, 2n ** 40n, true);
  view.setUint32(shard.length - 4, crc32c(shard.subarray(indexAt, shard.length - 4)), true);
  writeFileSync(path.join(dir, 'labels/c/0/0'), shard);
  const err = await runZarr(dir, '--array', 'labels', '--range', '0:64,0:64').catch((e) => e);
  expect(err).toBeInstanceOf(NumdecodeError);
  expect(err.code).toBe('ERR_BAD_DATA');
  expect(err.file).toBe('/labels/c/0/0');
  expect(err.message).toMatch(/shard index entry 0 \(offset 0, length 1099511627776\) is damaged/);
  // A chunk the damage does not touch still reads, and matches.
  const labels = await fullArray('sharded_v3.zarr', 'labels');
  const ok = csvCells((await runZarr(dir, '--array', 'labels', '--range', '64:66,0:3', '--to', 'csv')).toString());
  expect(ok.flat().map(Number)).toEqual(box(labels, [600, 700], [64, 0], [66, 3]).map(Number));
});

test('a store that is not there or not Zarr: one line naming it', async () => {
  // A URL's requests heed --max-read-bytes (and --timeout): the store reads through the I/O layer.
  const capped = await cli('zarr', `${base}/era5_like_v3.zarr`, '--array', 't2m', '--to', 'bin', '--max-read-bytes', '3000', '--timeout', '5000');
  expect(capped.status).toBe(1);
  expect(capped.stderr).toMatch(/maxReadBytes=3000/);
  expect(capped.stderr.trim().split('\n')).toHaveLength(1);
  const badTimeout = await cli('zarr', `${base}/era5_like_v3.zarr`, '--timeout', 'soon');
  expect(badTimeout.status).toBe(2);
  const gone = await cli('zarr', `${base}/no_such.zarr`);
  expect(gone.status).toBe(1);
  expect(gone.stderr).toBe(`numdecode: not found: ${base}/no_such.zarr\n`);
  const notZarr = await runZarr(path.join(zarrDir, 'expected')).catch((e) => e);
  expect(notZarr).toBeInstanceOf(NumdecodeError);
  expect(notZarr.code).toBe('ERR_BAD_DATA');
  expect(notZarr.file).toBe(path.join(zarrDir, 'expected'));
});

test('bad usage exits 2 and says why', async () => {
  const r = await cli('zarr', storeDir('sharded_v3.zarr'), '--array', 'labels', '--range', '0:5,9,3');
  expect(r.status).toBe(2);
  expect(r.stderr).toMatch(/slice "0:5,9,3" has 3 entries but the array has 2 dimensions/);
  const f = await cli('zarr', storeDir('sharded_v3.zarr'), '--array', 'labels', '--to', 'xml');
  expect(f.status).toBe(2);
  expect(f.stderr).toMatch(/--to must be csv, json, npy, bin/);
  const input = await cli('zarr', storeDir('sharded_v3.zarr'), '--array', 'labels', '--format', 'parquet');
  expect(input.status).toBe(2);
  expect(input.stderr).toMatch(/--format "parquet" does not fit \(--to names the output format\)/);
  const o = await cli('zarr', storeDir('sharded_v3.zarr'), '--array', 'labels', '--range', '700,0');
  expect(o.status).toBe(2);
  expect(o.stderr).toMatch(/dimension 0 \(size 600\): "700" is outside 0..599/);
});

test('--to npy: the slice with its shape, as numpy.load reads it; csv is the default', async () => {
  const labels = await fullArray('sharded_v3.zarr', 'labels');
  const npy = await runZarr(storeDir('sharded_v3.zarr'), '--array', 'labels', '--range', '10:13,20:30:3', '--to', 'npy');
  const got = readNpy(new Uint8Array(npy));
  expect([got.dtype, got.shape, got.fortranOrder]).toEqual(['u32', [3, 4], false]);
  const want = [];
  for (let r = 10; r < 13; r++) for (let c = 20; c < 30; c += 3) want.push(labels[r * 700 + c]);
  expect(Array.from(got.values)).toEqual(want);
  // The header as NumPy's format describes it: magic, version 1.0, a dict padded so the data starts at 64 * k.
  const headerLength = npy.readUInt16LE(8);
  expect((10 + headerLength) % 64).toBe(0);
  expect(npy.subarray(10, 10 + headerLength).toString('latin1')).toMatch(/^\{'descr': '<u4', 'fortran_order': False, 'shape': \(3, 4\), \} *\n$/);
  // float16 keeps its bits as <f2; the default output is CSV
  const half = readNpy(new Uint8Array(await runZarr(storeDir('dtypes_v3.zarr'), '--array', 'float16', '--range', '0:8', '--to', 'npy')));
  expect([half.dtype, half.shape]).toEqual(['f16', [8]]);
  expect(Array.from(half.values)).toEqual(Array.from((await fullArray('dtypes_v3.zarr', 'float16')).subarray(0, 8)));
  const csv = (await runZarr(storeDir('sharded_v3.zarr'), '--array', 'labels', '--range', '10,20:23')).toString();
  expect(csv).toBe(`${labels[10 * 700 + 20]}\n${labels[10 * 700 + 21]}\n${labels[10 * 700 + 22]}\n`);
});

test('the old names still work, warning once each: --slice, --format bin|csv|json, --max-bytes', async () => {
  const r = await cli('zarr', storeDir('sharded_v3.zarr'), '--array', 'labels', '--slice', '10,20:23', '--format', 'csv', '--max-bytes', '1000');
  expect(r.status).toBe(0);
  expect(r.stdout).toBe((await runZarr(storeDir('sharded_v3.zarr'), '--array', 'labels', '--range', '10,20:23', '--to', 'csv')).toString());
  for (const [old, now] of [['zarr --slice', '--range'], ['zarr --format csv', '--to csv'], ['zarr --max-bytes', '--max-output-bytes']]) {
    expect(r.stderr.split(`numdecode: ${old} is deprecated; use ${now}`).length - 1).toBe(1);
  }
  const small = await cli('zarr', storeDir('sharded_v3.zarr'), '--array', 'labels', '--slice', '0:100', '--max-bytes', '1000');
  expect(small.status).toBe(1);
  expect(small.stderr).toMatch(/ERR|limit|more than|exceed/i);
});
