// numdecode/parquet in headless Chromium: a bundle-free page (import map) reads the parquet-cpp
// ALP corpus over HTTP and from a Blob, bit-exact against the writer's CSVs; one column over HTTP
// fetches less than the file.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { openBrowser, chromiumAvailable } from '../helpers/chromium.js';
import { corpusRoot, readJson } from '../helpers/corpus.js';
import { buildParquet, compress } from './parquet-build.js';

const dir = path.join(corpusRoot, 'parquet-alp');
const manifest = readJson(dir, 'manifest.json');
let browser;

beforeAll(async () => {
  if (!chromiumAvailable) throw new Error('no Chromium at /usr/bin/chromium (set NUMDECODE_CHROMIUM)');
  browser = await openBrowser();
  await browser.page.goto(`${browser.base}/tests/js/parquet/parquet-browser.html`);
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

test('the demo opens a .parquet URL: schema, a column plotted from the worker, an ALP page in the ALP view', async () => {
  const { page } = browser;
  const errorsBefore = browser.pageErrors.length;
  await page.goto(`${browser.base}/web/?open=${encodeURIComponent('/corpus/parquet-alp/alp_spotify1.parquet')}&format=auto`);
  await page.waitForSelector('body[data-started=yes]', { timeout: 60000 });
  const shown = await page.evaluate(() => ({
    format: document.body.dataset.format,
    error: document.getElementById('error').hidden ? null : document.getElementById('error').textContent,
    title: document.getElementById('parquet-title')?.textContent,
    schema: [...document.querySelectorAll('#pq-schema tbody tr')].map((tr) => [...tr.cells].slice(0, 7).map((td) => td.textContent)),
    count: document.querySelector('#pq-values [data-stat=count]')?.textContent,
    first: [...document.querySelectorAll('#pq-values [data-stat=first] li')].slice(0, 3).map((li) => li.textContent),
    alpButtons: document.querySelectorAll('#pq-pages button[data-alp-page]').length,
  }));
  expect(shown.error).toBeNull();
  expect(shown.format).toBe('parquet');
  expect(shown.title).toBe('Parquet: alp_spotify1.parquet');
  const names = readFileSync(path.join(dir, 'alp_spotify1_expect.csv'), 'utf8').split('\n', 1)[0].split(',');
  expect(shown.schema.map((r) => r[0])).toEqual(names);
  // Footer facts for every column; pages counted for the plotted one (danceability) only.
  for (const row of shown.schema) expect(row.slice(1)).toEqual(['DOUBLE', 'OPTIONAL', 'UNCOMPRESSED', 'RLE, ALP', ...(row[0] === 'danceability' ? ['1', '1'] : ['–', '–'])]);
  expect(shown.count).toBe('15,000');
  // the first plotted column is danceability: its first values as the CSV has them
  const csv = readFileSync(path.join(dir, 'alp_spotify1_expect.csv'), 'utf8').split('\n').slice(1, 4).map((l) => Number(l.split(',')[0]));
  expect(shown.first.map(Number)).toEqual(csv);
  expect(shown.alpButtons).toBe(1);
  const before = Number(await page.getAttribute('body', 'data-actions')) || 0;
  await page.click('#pq-pages button[data-alp-page]');
  await page.waitForFunction((n) => Number(document.body.dataset.actions) > n, before, { timeout: 30000 });
  const alpView = await page.evaluate(() => ({
    visible: !document.getElementById('view-alp').hidden,
    layout: document.querySelector('#alp-header [data-field=layout]')?.textContent,
    back: Boolean(document.getElementById('back-to-parquet')),
  }));
  expect(alpView).toEqual({ visible: true, layout: expect.stringMatching(/merged/), back: true });
  await page.click('#back-to-parquet');
  expect(await page.evaluate(() => !document.getElementById('view-parquet').hidden)).toBe(true);
  expect(browser.pageErrors.slice(errorsBefore)).toEqual([]);
});

test('SNAPPY pages decompress in place in the page too (hysnappy\'s module caught as it is made)', async () => {
  const values = Float64Array.from({ length: 5000 }, (_, i) => Math.round(Math.cos(i / 37) * 1e6) / 1e3);
  const bytes = buildParquet({
    columns: [{ name: 'x', type: 'DOUBLE', values, required: true }],
    rowGroups: [3000, 2000],
    codec: 'SNAPPY',
    pages: (c, g) => (g === 0 ? [{ rows: 1500, encoding: 'PLAIN' }, { rows: 1500, encoding: 'PLAIN' }] : [{ rows: 2000, encoding: 'PLAIN' }]),
  });
  const url = `data:application/octet-stream;base64,${Buffer.from(bytes).toString('base64')}`;
  // back on the test page (the demo test above leaves it)
  await browser.page.goto(`${browser.base}/tests/js/parquet/parquet-browser.html`);
  await browser.page.waitForFunction(() => window.pageReady === true, null, { timeout: 30000 });
  const r = await browser.page.evaluate((u) => window.readParquet(u, {}, true), url);
  expect(Buffer.from(r.columns.x.base64, 'base64').equals(Buffer.from(values.buffer))).toBe(true);
  // the loader gave back WebAssembly.Instance as it found it, and its pages share one buffer
  expect(await browser.page.evaluate(() => WebAssembly.Instance.name)).toBe('Instance');
  const a = Uint8Array.from({ length: 40000 }, (_, i) => (i * 7) % 251);
  const b = Uint8Array.from({ length: 30000 }, (_, i) => (i * 13) % 251);
  const same = await browser.page.evaluate(
    async ([ca, na, cb, nb]) => {
      const { loadCodec } = await import('/js/parquet/codecs.js');
      const inflate = await loadCodec('SNAPPY');
      const x = inflate(Uint8Array.from(ca), na);
      const first = { buffer: x.buffer, sum: x.reduce((s, v) => s + v, 0) };
      const y = inflate(Uint8Array.from(cb), nb);
      return { shared: y.buffer === first.buffer, sums: [first.sum, y.reduce((s, v) => s + v, 0)] };
    },
    [Array.from(compress('SNAPPY', a)), a.length, Array.from(compress('SNAPPY', b)), b.length],
  );
  expect(same).toEqual({ shared: true, sums: [a.reduce((s, v) => s + v, 0), b.reduce((s, v) => s + v, 0)] });
  expect(browser.pageErrors).toEqual([]);
});
