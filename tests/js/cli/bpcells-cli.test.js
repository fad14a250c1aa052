// `numdecode inspect DIR_OR_URL` and `numdecode bpcells DIR_OR_URL --export OUTDIR [--range a:b]`,
// run as a user would (a child process), locally and over HTTP.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LARGE, cases, expected, sameBytes, setDir } from '../helpers/bpcells-corpus.js';
import { runCli } from '../helpers/cli-process.js';

let server;
let base;
let out;

// A user's run: a child process (the HTTP server lives in this process and must keep answering).
const cli = runCli;

beforeAll(async () => {
  out = mkdtempSync(path.join(tmpdir(), 'bpcells-cli-'));
  server = http.createServer((req, res) => {
    // /dotted.matrix/... serves the large case's directory under a name with a dot.
    const large = cases.find((x) => x.name === LARGE).dir;
    const urlPath = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/dotted\.matrix(?=\/|$)/, `/${large}`);
    const file = path.join(setDir, urlPath);
    let data;
    try {
      if (!file.startsWith(setDir + path.sep) || !statSync(file).isFile()) throw new Error('no');
      data = readFileSync(file);
    } catch {
      res.writeHead(404).end();
      return;
    }
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (!m) return void res.writeHead(200, { 'Content-Length': data.length }).end(req.method === 'HEAD' ? undefined : data);
    const [a, b] = [Number(m[1]), Math.min(Number(m[2]), data.length - 1)];
    res.writeHead(206, { 'Content-Range': `bytes ${a}-${b}/${data.length}`, 'Content-Length': b - a + 1 }).end(data.subarray(a, b + 1));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});

afterAll(async () => {
  rmSync(out, { recursive: true, force: true });
  await new Promise((resolve) => server.close(resolve));
});

test('inspect a local directory and the same directory over HTTP', async () => {
  const c = cases.find((x) => x.name === LARGE);
  for (const target of [path.join(setDir, c.dir), `${base}/${c.dir}/`]) {
    const r = await cli('inspect', target);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const info = JSON.parse(r.stdout);
    expect(info.version).toBe('packed-uint-matrix-v2');
    expect(info.shape).toEqual([20000, 3000]);
    expect(info.storage_order).toBe('col');
    expect(info.nnz).toBe(c.nnz);
    expect(info.dtype).toBe('u32');
    expect(info.bytes.index_data).toBe(statSync(path.join(setDir, c.dir, 'index_data')).size);
    expect(info.bytes.val_data).toBe(statSync(path.join(setDir, c.dir, 'val_data')).size);
    // Raw u32 index + val over the stored index_* + val_* files.
    const stored = ['index_data', 'index_idx', 'index_idx_offsets', 'index_starts', 'val_data', 'val_idx', 'val_idx_offsets']
      .reduce((s, n) => s + info.bytes[n], 0);
    expect(info.compression_ratio).toBeCloseTo((16 + 8 * c.nnz) / stored, 3);
    expect(info.compression_ratio).toBeGreaterThan(3);
  }
});

test('inspect a directory URL whose name has a dot: probed as HDF5 first, then read as the directory it is', async () => {
  const c = cases.find((x) => x.name === LARGE);
  const r = await cli('inspect', `${base}/dotted.matrix`);
  expect([r.status, r.stderr]).toEqual([0, '']);
  const info = JSON.parse(r.stdout);
  expect([info.version, info.shape, info.nnz, info.hdf5]).toEqual(['packed-uint-matrix-v2', [20000, 3000], c.nnz, undefined]);
});

test('export a range of columns; files match the expected arrays', async () => {
  const c = cases.find((x) => x.name === 'packed_uint_col_128_129');
  const exp = expected(c);
  const dir = path.join(out, 'range');
  const r = await cli('bpcells', path.join(setDir, c.dir), '--export', dir, '--range', '1:3');
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const shape = JSON.parse(readFileSync(path.join(dir, 'shape.json'), 'utf8'));
  expect(shape).toMatchObject({ shape: [300, 6], storage_order: 'col', layout: 'CSC', range: [1, 3], slice_shape: [300, 2], dtype: 'u32' });
  const [p0, p1] = [exp.idxptr[1], exp.idxptr[3]];
  expect(shape.nnz).toBe(p1 - p0);
  const ptr = new BigUint64Array(new Uint8Array(readFileSync(path.join(dir, 'idxptr.u64'))).buffer);
  expect(Array.from(ptr, Number)).toEqual([0, exp.idxptr[2] - p0, p1 - p0]);
  expect(sameBytes(new Uint8Array(readFileSync(path.join(dir, 'index.u32'))), exp.index.subarray(4 * p0, 4 * p1))).toBe(true);
  expect(sameBytes(new Uint8Array(readFileSync(path.join(dir, 'val.u32'))), exp.val.subarray(4 * p0, 4 * p1))).toBe(true);
});

test('export a whole row-major double matrix over HTTP', async () => {
  const c = cases.find((x) => x.name === 'packed_double_row_names');
  const exp = expected(c);
  const dir = path.join(out, 'whole');
  const r = await cli('bpcells', `${base}/${c.dir}`, '--export', dir);
  expect(r.status).toBe(0);
  expect(sameBytes(new Uint8Array(readFileSync(path.join(dir, 'idxptr.u64'))), new Uint8Array(BigUint64Array.from(exp.idxptr, BigInt).buffer))).toBe(true);
  expect(sameBytes(new Uint8Array(readFileSync(path.join(dir, 'index.u32'))), exp.index)).toBe(true);
  expect(sameBytes(new Uint8Array(readFileSync(path.join(dir, 'val.f64'))), exp.val)).toBe(true);
  expect(JSON.parse(readFileSync(path.join(dir, 'shape.json'), 'utf8')).layout).toBe('CSR');
});

test('--range takes NumPy negative bounds; --max-bytes still works as --max-read-bytes, warning once', async () => {
  const c = cases.find((x) => x.name === 'packed_uint_col_128_129');
  const exp = expected(c);
  const dir = path.join(out, 'negative');
  const r = await cli('bpcells', path.join(setDir, c.dir), '--export', dir, '--range=-2:', '--max-bytes', '100000000');
  expect(r.status).toBe(0);
  const shape = JSON.parse(readFileSync(path.join(dir, 'shape.json'), 'utf8'));
  expect(shape.range).toEqual([4, 6]);
  const [p0, p1] = [exp.idxptr[4], exp.idxptr[6]];
  expect(sameBytes(new Uint8Array(readFileSync(path.join(dir, 'index.u32'))), exp.index.subarray(4 * p0, 4 * p1))).toBe(true);
  expect(r.stderr.split('numdecode: bpcells --max-bytes is deprecated; use --max-read-bytes').length - 1).toBe(1);
  const tooSmall = await cli('bpcells', `${base}/${c.dir}`, '--export', dir, '--max-read-bytes', '10');
  expect(tooSmall.status).toBe(1);
  expect(tooSmall.stderr).toMatch(/^numdecode: bpcells: version: download limit reached: .* exceed maxReadBytes=10 /);
});

test('bad input exits 1 with one line; bad usage exits 2', async () => {
  const bad = await cli('bpcells', path.join(setDir, 'corrupt/index_ge_nrow_packed'), '--export', path.join(out, 'bad'));
  expect(bad.status).toBe(1);
  expect(bad.stderr).toMatch(/^numdecode: bpcells: index: value \d+ at position \d+ is out of range \(must be < 10\)\n$/);
  const notMatrix = await cli('inspect', path.join(setDir, 'corrupt'));
  expect(notMatrix.status).toBe(1);
  expect(notMatrix.stderr).toBe(`numdecode: ${path.join(setDir, 'corrupt')}: not a format numdecode reads (checked: Pco, Parquet, HDF5, Zarr, BPCells directory) (ALP pages carry no signature: --format alp --dtype f32|f64)\n`);
  const missing = await cli('inspect', `${base}/nothing/here/`);
  expect([missing.status, missing.stderr]).toEqual([1, `numdecode: not found: ${base}/nothing/here/\n`]);
  const missingExport = await cli('bpcells', `${base}/nothing/here`, '--export', path.join(out, 'none'));
  expect([missingExport.status, missingExport.stderr]).toEqual([1, `numdecode: not found: ${base}/nothing/here\n`]);
  const usage = await cli('bpcells', path.join(setDir, 'packed_uint_1x1/matrix'), '--export', path.join(out, 'u'), '--range', 'x');
  expect(usage.status).toBe(2);
  expect(usage.stderr).toMatch(/--range: slice "x", dimension 0 \(size 1\)/);
  const step = await cli('bpcells', path.join(setDir, 'packed_uint_1x1/matrix'), '--export', path.join(out, 'u'), '--range', '0:1:2');
  expect([step.status, step.stderr]).toEqual([2, expect.stringMatching(/--range 0:1:2: bpcells reads whole runs of positions \(no step\)/)]);
  // NumPy's rules: a stop past the end stops at the end, negative counts from the end
  const clamped = await cli('bpcells', path.join(setDir, 'packed_uint_1x1/matrix'), '--export', path.join(out, 'u'), '--range', '0:5');
  expect(clamped.status).toBe(0);
  expect(JSON.parse(clamped.stdout).range).toEqual([0, 1]);
});

test('--concurrency caps the requests in flight over HTTP (64 by default); the export is exact either way', async () => {
  const { startServer, serveDirectory } = await import('../helpers/io-test-server.js');
  const h5Dir = path.join(path.dirname(setDir), 'bpcells-hdf5', 'large_packed_uint_col_20000x2000');
  const far = await startServer();
  far.delay = 20; // every answer held back: requests sent together are in flight together
  try {
    const want = new Uint8Array(readFileSync(path.join(h5Dir, 'expected_index.u32.bin')));
    for (const [flags, check] of [
      [['--concurrency', '2'], (peak) => expect(peak).toBe(2)],
      [[], (peak) => expect(peak).toBeGreaterThan(6)], // the 15 data B-tree leaves of one pass together; 6 before
    ]) {
      far.handler = (req, res) => serveDirectory(req, res, h5Dir);
      const dir = path.join(out, `h5-${flags.length}`);
      const r = await cli('bpcells', `${far.base}/matrix.h5`, '--group', 'mat', '--export', dir, ...flags);
      expect([r.status, r.stderr]).toEqual([0, expect.any(String)]);
      check(far.state.peak);
      expect(sameBytes(new Uint8Array(readFileSync(path.join(dir, 'index.u32'))), want)).toBe(true);
    }
    const bad = await cli('bpcells', `${far.base}/matrix.h5`, '--concurrency', '0');
    expect([bad.status, bad.stderr]).toEqual([2, expect.stringMatching(/--concurrency must be a positive integer, got "0"/)]);
  } finally {
    await far.close();
  }
});
