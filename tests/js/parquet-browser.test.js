// numdecode/parquet in headless Chromium: a bundle-free page (import map) reads the parquet-cpp
// ALP corpus over HTTP and from a Blob, bit-exact against the writer's CSVs; one column over HTTP
// fetches less than the file.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { openBrowser, chromiumAvailable } from './zarr-chromium.js';
import { corpusRoot, readJson } from './corpus.js';

const dir = path.join(corpusRoot, 'parquet-alp');
const manifest = readJson(dir, 'manifest.json');
let browser;

beforeAll(async () => {
  if (!chromiumAvailable) throw new Error('no Chromium at /usr/bin/chromium (set NUMDECODE_CHROMIUM)');
  browser = await openBrowser();
  await browser.page.goto(`${browser.base}/tests/js/parquet-browser.html`);
  await browser.page.waitForFunction(() => window.pageReady === true, null, { timeout: 30000 });
});

afterAll(async () => {
  await browser?.close();
});

// The CSV column as the raw bytes of a Float32Array / Float64Array.
function expectedBytes(csv, column, isFloat) {
  const lines = readFileSync(path.join(dir, csv), 'utf8').trim().split('\n');
  const j = lines[0].split(',').indexOf(column);
  const out = isFloat ? new Float32Array(lines.length - 1) : new Float64Array(lines.length - 1);
  for (let i = 1; i < lines.length; i++) out[i - 1] = Number(lines[i].split(',')[j]);
  return Buffer.from(out.buffer);
}

test.each(manifest.map((m) => [m.file, m]))('%s reads bit-exactly in the page (over HTTP)', async (_f, m) => {
  const r = await browser.page.evaluate((url) => window.readParquet(url), `/corpus/parquet-alp/${m.file}`);
  const isFloat = m.file.includes('float');
  expect(r.numRows).toBe(m.rows);
  const names = readFileSync(path.join(dir, m.csv), 'utf8').split('\n', 1)[0].split(',');
  expect(Object.keys(r.columns)).toEqual(names);
  for (const name of names) {
    expect(r.columns[name].type).toBe(isFloat ? 'FLOAT' : 'DOUBLE');
    expect(r.columns[name].valid).toBeNull();
    expect(Buffer.from(r.columns[name].base64, 'base64').equals(expectedBytes(m.csv, name, isFloat))).toBe(true);
  }
  expect(browser.pageErrors).toEqual([]);
});

test('one column over HTTP fetches less than the file; a Blob and a row range read the same bits', async () => {
  const file = 'alp_spotify1.parquet';
  const size = statSync(path.join(dir, file)).size;
  const r = await browser.page.evaluate((url) => window.readParquet(url, { columns: ['energy'] }), `/corpus/parquet-alp/${file}`);
  const want = expectedBytes('alp_spotify1_expect.csv', 'energy', false);
  expect(Buffer.from(r.columns.energy.base64, 'base64').equals(want)).toBe(true);
  expect(r.stats.bytes).toBeLessThan(size / 3);
  const b = await browser.page.evaluate((url) => window.readParquet(url, { columns: ['energy'], rowStart: 777, rowEnd: 12345 }, true), `/corpus/parquet-alp/${file}`);
  expect(Buffer.from(b.columns.energy.base64, 'base64').equals(want.subarray(777 * 8, 12345 * 8))).toBe(true);
});

test('inspect in the page: ALP pages, merged layout', async () => {
  const cols = await browser.page.evaluate((url) => window.inspectParquet(url), '/corpus/parquet-alp/alp_float_arade.parquet');
  expect(cols.map((c) => c.column)).toEqual(['value1', 'value2', 'value3', 'value4']);
  for (const c of cols) expect(c.pages).toEqual([{ encoding: 'ALP', layout: 'merged', numVectors: 15 }]);
});
