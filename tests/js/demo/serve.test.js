// scripts/serve.mjs: the demo's static server, including the Range requests the BPCells reader makes.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createStaticServer, parseRange } from '../../../scripts/serve.mjs';
import { pcoDir, projectRoot } from '../helpers/corpus.js';

let server;
let base;

beforeAll(async () => {
  server = createStaticServer({ mounts: [['/', projectRoot], ['/corpus/', path.dirname(pcoDir)]] });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

const pkgBytes = readFileSync(path.join(projectRoot, 'package.json'));

test('parseRange', () => {
  expect(parseRange(undefined, 100)).toBeNull();
  expect(parseRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
  expect(parseRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
  expect(parseRange('bytes=90-1000', 100)).toEqual({ start: 90, end: 99 });
  expect(parseRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
  expect(parseRange('bytes=-1000', 100)).toEqual({ start: 0, end: 99 });
  expect(parseRange('bytes=100-', 100)).toBe('unsatisfiable');
  expect(parseRange('bytes=-0', 100)).toBe('unsatisfiable');
  expect(parseRange('bytes=5-2', 100)).toBeNull();
  expect(parseRange('bytes=0-1,5-6', 100)).toBeNull();
  expect(parseRange('items=0-1', 100)).toBeNull();
});

test('whole files, with types the browser needs', async () => {
  const res = await fetch(`${base}/package.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get('accept-ranges')).toBe('bytes');
  expect(Buffer.from(await res.arrayBuffer()).equals(pkgBytes)).toBe(true);
  const wasm = await fetch(`${base}/dist/numdecode-pco-simd.wasm`, { method: 'HEAD' });
  expect(wasm.status).toBe(200);
  expect(wasm.headers.get('content-type')).toBe('application/wasm');
  expect((await fetch(`${base}/js/index.js`, { method: 'HEAD' })).headers.get('content-type')).toMatch(/^text\/javascript/);
});

test('range requests return exactly the requested bytes', async () => {
  const res = await fetch(`${base}/package.json`, { headers: { Range: 'bytes=2-11' } });
  expect(res.status).toBe(206);
  expect(res.headers.get('content-range')).toBe(`bytes 2-11/${pkgBytes.length}`);
  expect(res.headers.get('content-length')).toBe('10');
  expect(Buffer.from(await res.arrayBuffer()).equals(pkgBytes.subarray(2, 12))).toBe(true);

  const suffix = await fetch(`${base}/package.json`, { headers: { Range: 'bytes=-5' } });
  expect(suffix.status).toBe(206);
  expect(Buffer.from(await suffix.arrayBuffer()).equals(pkgBytes.subarray(pkgBytes.length - 5))).toBe(true);

  const past = await fetch(`${base}/package.json`, { headers: { Range: `bytes=${pkgBytes.length}-` } });
  expect(past.status).toBe(416);
  expect(past.headers.get('content-range')).toBe(`bytes */${pkgBytes.length}`);
});

test('the corpus mount serves corpus files by range', async () => {
  const file = readFileSync(path.join(pcoDir, 'classic_u32_n1000.pco'));
  const res = await fetch(`${base}/corpus/pco/classic_u32_n1000.pco`, { headers: { Range: 'bytes=0-3' } });
  expect(res.status).toBe(206);
  expect(Buffer.from(await res.arrayBuffer()).equals(file.subarray(0, 4))).toBe(true);
});

test('nothing outside the mounts, missing files 404, directories redirect', async () => {
  expect((await fetch(`${base}/%2e%2e/%2e%2e/etc/passwd`)).status).toBe(404);
  expect((await fetch(`${base}/..%2f..%2fetc%2fpasswd`)).status).toBe(404);
  expect((await fetch(`${base}/no/such/file`)).status).toBe(404);
  expect((await fetch(`${base}/package.json`, { method: 'POST' })).status).toBe(405);
  const dir = await fetch(`${base}/web`, { redirect: 'manual' });
  expect(dir.status).toBe(301);
  expect(dir.headers.get('location')).toBe('/web/');
  const index = await fetch(`${base}/web/`);
  expect(index.status).toBe(200);
  expect(await index.text()).toMatch(/<title>numdecode demo<\/title>/);
});
