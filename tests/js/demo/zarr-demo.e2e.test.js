// The demo page's Zarr view in headless Chromium: each corpus store written with the reference
// pcodec (../shared/corpus/zarr-pcodec) opened from the sample menu over HTTP. Checks the metadata
// shown, a 1-D plot, a 2-D heatmap and the value under the cursor against the expected arrays,
// the chunk requests of a slice (only the chunks it covers), a pcodec chunk opened in the Pco
// view, shards indexed at the start read like those indexed at the end, and that an array with a
// codec nothing here decodes is refused by name without taking the page down.
// Screenshot: test-output/screenshots/zarr.png (docs/screenshots/ comes from demo-views.e2e.test.js).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import Zstd from 'numcodecs/zstd';
import path from 'node:path';
import { chromiumAvailable, openBrowser } from '../helpers/chromium.js';
import { dropFolder } from '../helpers/drop-folder.js';
import { halfToNumber } from '../helpers/float16.js';
import { corpusRoot, projectRoot, sha256 } from '../helpers/corpus.js';
import { slowRoute } from '../helpers/slow-route.js';
import { openZarr } from '../../../js/zarr-explore/explorer.js';

const zarrDir = path.join(corpusRoot, 'zarr-pcodec');
const manifest = JSON.parse(readFileSync(path.join(zarrDir, 'expected/manifest.json'), 'utf8'));
const shotsDir = path.join(projectRoot, 'test-output', 'screenshots');
const TYPED = { uint16: Uint16Array, uint32: Uint32Array, float16: Uint16Array, float32: Float32Array, float64: Float64Array, int64: BigInt64Array };

let browser;
let page;
let tmp;
const ZSTD_VALUES = Float32Array.from({ length: 100 }, (_, i) => Math.fround(Math.sin(i / 7) * 100));

function v3Array(dataType, shape, chunkShape, codecs) {
  return JSON.stringify({
    zarr_format: 3, node_type: 'array', shape, data_type: dataType,
    chunk_grid: { name: 'regular', configuration: { chunk_shape: chunkShape } },
    chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
    fill_value: 0, codecs, attributes: {},
  });
}

// A store beside the corpus ones: a zstd array (zarrita decodes it with the numcodecs package) and
// an array whose codec nobody here has.
async function writeMixedStore(dir) {
  mkdirSync(path.join(dir, 'zstd_f32/c'), { recursive: true });
  mkdirSync(path.join(dir, 'fpzip/c'), { recursive: true });
  writeFileSync(path.join(dir, 'zarr.json'), JSON.stringify({ zarr_format: 3, node_type: 'group', attributes: {} }));
  writeFileSync(path.join(dir, 'zstd_f32/zarr.json'), v3Array('float32', [100], [50], [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'zstd', configuration: { level: 3, checksum: false } }]));
  const zstd = Zstd.fromConfig({ level: 3 });
  for (const k of [0, 1]) writeFileSync(path.join(dir, `zstd_f32/c/${k}`), await zstd.encode(new Uint8Array(ZSTD_VALUES.buffer, k * 200, 200)));
  writeFileSync(path.join(dir, 'fpzip/zarr.json'), v3Array('float32', [10], [10], [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'numcodecs.fpzip', configuration: {} }]));
  writeFileSync(path.join(dir, 'fpzip/c/0'), new Uint8Array(40));
}
const chunkRequests = []; // paths of chunk and shard requests the page made

// Expected arrays: read here through the same explorer from disk and checked against the
// manifest's SHA-256 of the reference bytes before anything is compared with them.
const expected = new Map();
async function expectedArray(store, array) {
  const key = `${store}/${array}`;
  if (!expected.has(key)) {
    const m = manifest.find((x) => x.store === store && x.array === array);
    const z = await openZarr(path.join(zarrDir, 'stores', store));
    const { values } = await z.read(`/${array}`, '');
    const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    expect(sha256(bytes)).toBe(m.sha256_of_bin);
    expected.set(key, { values: new TYPED[m.dtype](bytes.slice().buffer), shape: m.shape });
  }
  return expected.get(key);
}

/** Does the shown text stand for exactly this value? */
function sameValue(dtype, text, want) {
  if (typeof want === 'bigint') return BigInt(text) === want;
  if (dtype === 'float16') want = halfToNumber(want);
  if (Number.isNaN(want)) return text === 'NaN';
  const shown = dtype === 'float32' ? Math.fround(Number(text)) : Number(text);
  return Object.is(shown, want);
}

async function waitForAction(act, { error: expectError = false } = {}) {
  const before = Number(await page.getAttribute('body', 'data-actions')) || 0;
  await act();
  await page.waitForFunction((n) => Number(document.body.dataset.actions) > n, before, { timeout: 60000, polling: 50 });
  const error = await page.evaluate(() => (document.getElementById('error').hidden ? null : document.getElementById('error').textContent));
  if (!expectError) expect(error).toBeNull();
}

async function openSample(store) {
  const value = await page.evaluate((s) => [...document.querySelectorAll('#samples option')].find((o) => o.value.includes(`/stores/${s}"`))?.value, store);
  expect(value).toBeTruthy();
  await page.selectOption('#samples', value);
  chunkRequests.length = 0;
  await waitForAction(() => page.click('#sample-form button[type=submit]'));
  await page.waitForFunction((s) => document.getElementById('zarr-title')?.textContent === `Zarr: ${s}` && document.body.dataset.state === 'ready', store, { timeout: 60000, polling: 50 });
  expect(await page.isVisible('#view-zarr')).toBe(true);
}

async function selectArray(p) {
  chunkRequests.length = 0;
  await waitForAction(() => page.click(`#zarr-tree button[data-path="${p}"]`));
  await page.waitForFunction((x) => document.getElementById('zarr-slice-summary').dataset.path === x || !document.getElementById('zarr-slice-error').hidden, p, { timeout: 60000, polling: 50 });
}

const meta = () => page.evaluate(() => Object.fromEntries([...document.querySelectorAll('#zarr-meta td')].map((td) => [td.dataset.field, td.textContent])));
const summary = () => page.evaluate(() => ({ ...document.getElementById('zarr-slice-summary').dataset }));

/** Where heatmap cell (row r, column c) is on the page (the image's origin and cell size are on the canvas). */
async function cellPoint(r, c) {
  await page.locator('#zarr-heatmap').scrollIntoViewIfNeeded();
  const box = await page.locator('#zarr-heatmap').boundingBox();
  const { left, top, cellWidth, cellHeight } = await page.evaluate(() => ({ ...document.getElementById('zarr-heatmap').dataset }));
  return { x: box.x + Number(left) + (c + 0.5) * Number(cellWidth), y: box.y + Number(top) + (r + 0.5) * Number(cellHeight) };
}

/** Points at heatmap cell (row r, column c) and returns the readout's {index, value, notStored, coords}. */
async function valueAt(r, c) {
  const { x, y } = await cellPoint(r, c);
  await page.mouse.move(x, y);
  return page.evaluate(() => ({ ...document.getElementById('zarr-heat-readout').dataset }));
}

/** Points at a fraction of the line plot's width and returns its readout's {index, value} (the exact value text). */
async function lineValueAt(fraction) {
  await page.locator('#zarr-line').scrollIntoViewIfNeeded();
  const box = await page.locator('#zarr-line').boundingBox();
  const { plotLeft, plotWidth } = await page.evaluate(() => ({ ...document.getElementById('zarr-line').dataset }));
  await page.mouse.move(box.x + Number(plotLeft) + fraction * Number(plotWidth), box.y + box.height / 2);
  return page.evaluate(() => ({ text: document.getElementById('zarr-line-readout').textContent, ...document.getElementById('zarr-line-readout').dataset }));
}

async function setIndex(dim, value) {
  chunkRequests.length = 0;
  await waitForAction(async () => {
    await page.fill(`#zarr-dims input[data-dim="${dim}"][data-field=index]`, String(value));
    await page.dispatchEvent(`#zarr-dims input[data-dim="${dim}"][data-field=index]`, 'change');
  });
  await page.waitForFunction(([d, v]) => document.getElementById('zarr-slice-summary').dataset.slice?.split(',')[d] === String(v), [dim, value], { timeout: 60000, polling: 50 });
}

const describeIf = chromiumAvailable ? describe : describe.skip;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  mkdirSync(shotsDir, { recursive: true });
  tmp = mkdtempSync(path.join(tmpdir(), 'zarr-demo-'));
  await writeMixedStore(path.join(tmp, 'mixed.zarr'));
  browser = await openBrowser([['/tmpstores/', tmp]]);
  page = browser.page;
  await page.setViewportSize({ width: 1280, height: 1000 });
  page.on('request', (req) => {
    const p = new URL(req.url()).pathname;
    if (p.includes('/zarr-pcodec/stores/') && !/(zarr\.json|\.z\w+)$/.test(p)) chunkRequests.push(p.replace(/^.*\/stores\//, ''));
  });
  await page.goto(`${browser.base}/web/`);
  await page.waitForSelector('body[data-started=yes]', { timeout: 60000 });
}, 120000);

afterAll(async () => {
  const errors = browser?.pageErrors ?? [];
  await browser?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  expect(errors).toEqual([]);
});

describeIf('Zarr view', () => {
  test('v3 consolidated store: hierarchy, metadata, a heatmap with exact values, only the covered chunks fetched', async () => {
    await openSample('era5_like_v3.zarr');
    const paths = await page.$$eval('#zarr-tree button[data-path]', (b) => b.map((x) => x.dataset.path));
    expect(paths).toEqual(['/latitude', '/longitude', '/t2m', '/time', '/tp']);
    expect(await meta()).toMatchObject({
      path: '/t2m', 'zarr-format': '3', shape: '24 × 181 × 360', dtype: 'float32', chunks: '1 × 91 × 180',
      'chunk-key-encoding': 'default, separator "/"', 'fill-value': '"NaN"', dims: 'time, latitude, longitude',
    });
    expect(await page.$$eval('#zarr-codecs tbody tr', (rows) => rows.map((r) => [...r.cells].slice(0, 3).map((c) => c.textContent)))).toEqual([['numcodecs.pcodec', 'codec', 'numdecode']]);
    // The default slice t2m[0, :, :] covers chunks (0, 0..1, 0..1); the coordinate arrays named by
    // its dimensions (time, latitude, longitude) are read whole, one chunk each, for the axes.
    expect(await summary()).toMatchObject({ slice: '0,:,:', covered: '4', requests: '4' });
    expect(chunkRequests.sort()).toEqual([
      'era5_like_v3.zarr/latitude/c/0', 'era5_like_v3.zarr/longitude/c/0',
      'era5_like_v3.zarr/t2m/c/0/0/0', 'era5_like_v3.zarr/t2m/c/0/0/1', 'era5_like_v3.zarr/t2m/c/0/1/0', 'era5_like_v3.zarr/t2m/c/0/1/1',
      'era5_like_v3.zarr/time/c/0',
    ]);
    // The four chunks were decoded in the worker pool (its completed jobs, as the page shows them).
    await page.waitForFunction(() => Number(document.getElementById('zarr-pool').dataset.completed) >= 4, null, { timeout: 10000, polling: 50 });
    const t2m = await expectedArray('era5_like_v3.zarr', 't2m');
    const at = (t, r, c) => t2m.values[(t * 181 + r) * 360 + c];
    for (const [r, c] of [[0, 0], [90, 179], [91, 180], [180, 359], [45, 300]]) {
      const shown = await valueAt(r, c);
      expect(shown.index).toBe(`0,${r},${c}`);
      expect(sameValue('float32', shown.value, at(0, r, c))).toBe(true);
    }
    // Time 5: chunk (5, 1, 0) is missing and reads as the fill value NaN.
    await setIndex(0, 5);
    expect(await summary()).toMatchObject({ slice: '5,:,:', covered: '4', requests: '4' });
    expect(chunkRequests).toContain('era5_like_v3.zarr/t2m/c/5/1/0');
    const missing = await valueAt(150, 20);
    expect(missing).toMatchObject({ index: '5,150,20', value: 'NaN', notStored: 'yes' });
    expect(Number.isNaN(at(5, 150, 20))).toBe(true);
    const stored = await valueAt(20, 200);
    expect(sameValue('float32', stored.value, at(5, 20, 200))).toBe(true);
    await page.screenshot({ path: path.join(shotsDir, 'zarr.png'), fullPage: true });
  });

  test('a 1-D array as the line plot: the value under the cursor', async () => {
    await selectArray('/latitude');
    expect(await page.isVisible('#zarr-line')).toBe(true);
    expect(await summary()).toMatchObject({ slice: ':', covered: '1', requests: '1' });
    const lat = await expectedArray('era5_like_v3.zarr', 'latitude');
    for (const fraction of [0.1, 0.5, 0.9]) {
      const shown = await lineValueAt(fraction);
      expect(sameValue('float64', shown.value, lat.values[Number(shown.index)])).toBe(true);
      // Named, with its unit: latitude[i] = 45°N (or 45°S for -45).
      const v = lat.values[Number(shown.index)];
      expect(shown.text).toBe(`latitude[${shown.index}] = ${Math.abs(v)}°${v < 0 ? 'S' : 'N'}`);
    }
  });

  test('a pcodec chunk opens in the Pco view, and the way back', async () => {
    await selectArray('/t2m');
    // Cell (100, 200) of time 0 lies in chunk (0, 1, 1), stored whole: 1 x 91 x 180 values (the edge padded).
    const cell = await cellPoint(100, 200);
    await waitForAction(() => page.mouse.click(cell.x, cell.y));
    expect(await page.isVisible('#view-pco')).toBe(true);
    expect(await page.textContent('#pco-title')).toMatch(/t2m chunk 0\.1\.1/);
    expect(await page.textContent('#pco-values [data-stat=count]')).toBe('16,380');
    const first = await page.$$eval('#pco-values [data-stat=first] li', (li) => li.map((x) => x.textContent));
    const t2m = await expectedArray('era5_like_v3.zarr', 't2m');
    first.forEach((text, k) => expect(sameValue('float32', text, t2m.values[(0 * 181 + 91) * 360 + 180 + k])).toBe(true));
    await page.click('#back-to-zarr');
    expect(await page.isVisible('#view-zarr')).toBe(true);
  });

  test('roles: one dimension of a 3-D array as the line plot, then the heatmap with rows after columns', async () => {
    await selectArray('/t2m');
    const t2m = await expectedArray('era5_like_v3.zarr', 't2m');
    const at = (t, r, c) => t2m.values[(t * 181 + r) * 360 + c];
    const setRole = async (dim, role, slice) => {
      await waitForAction(() => page.selectOption(`#zarr-dims select[data-dim="${dim}"]`, role));
      await page.waitForFunction((x) => document.getElementById('zarr-slice-summary').dataset.slice === x, slice, { timeout: 60000, polling: 50 });
    };
    // Latitude as x: the other x (longitude) becomes a fixed index, and no y is left.
    await setRole(1, 'x', '0,:,0');
    expect(await page.isVisible('#zarr-line')).toBe(true);
    expect(await summary()).toMatchObject({ covered: '2', requests: '2' });
    const line = await lineValueAt(0.3);
    expect(sameValue('float32', line.value, at(0, Number(line.index), 0))).toBe(true);
    expect(line.text).toMatch(new RegExp(`^t2m\\[0, ${line.index}, 0\\] = ${line.value} K at latitude \\d+°[NS], time 2024-01-01, longitude 0°E$`));
    // Longitude as y: rows are longitudes, columns latitudes.
    await setRole(2, 'y', '0,:,:');
    expect(await page.evaluate(() => ({ ...document.getElementById('zarr-heatmap').dataset }))).toMatchObject({ rows: '360', cols: '181' });
    for (const [r, c] of [[200, 50], [0, 180], [359, 0]]) {
      const shown = await valueAt(r, c);
      expect(shown.index).toBe(`0,${c},${r}`);
      expect(sameValue('float32', shown.value, at(0, c, r))).toBe(true);
    }
  });

  test('v2 store: order "F" array shown in C order, _ARRAY_DIMENSIONS as dimension names', async () => {
    await openSample('era5_like_v2.zarr');
    await selectArray('/tp');
    expect(await meta()).toMatchObject({ 'zarr-format': '2', dtype: 'float32 (<f4)', order: 'F', 'chunk-key-encoding': 'v2, separator "."', dims: 'time, latitude, longitude' });
    await setIndex(0, 13);
    // tp chunks are (12, 64, 128): time 13 in chunk 1; all rows (3 chunks) x columns (3 chunks).
    expect(await summary()).toMatchObject({ slice: '13,:,:', covered: '9', requests: '9' });
    const tp = await expectedArray('era5_like_v3.zarr', 'tp');
    for (const [r, c] of [[0, 0], [70, 130], [180, 359], [100, 10]]) {
      const shown = await valueAt(r, c);
      expect(shown.index).toBe(`13,${r},${c}`);
      expect(sameValue('float32', shown.value, tp.values[(13 * 181 + r) * 360 + c])).toBe(true);
    }
  });

  test('sharded store: inner chunks in one coalesced range, an index at the start read as well as one at the end', async () => {
    await openSample('sharded_v3.zarr');
    const paths = await page.$$eval('#zarr-tree button[data-path]', (b) => b.map((x) => x.dataset.path));
    expect(paths).toEqual(['/counts', '/labels', '/labels_index_start']);
    expect(await meta()).toMatchObject({ path: '/counts', shards: '1024 × 1024', chunks: '256 × 256', 'index-location': 'at the end' });
    // counts[0:1024, 0:1024]: 16 inner chunks of shard (0, 0): its index, then one range for all of them.
    expect(await summary()).toMatchObject({ covered: '16', requests: '2' });
    expect(new Set(chunkRequests)).toEqual(new Set(['sharded_v3.zarr/counts/c/0/0']));
    const counts = await expectedArray('sharded_v3.zarr', 'counts');
    for (const [r, c] of [[0, 0], [300, 700], [1023, 1023]]) {
      const shown = await valueAt(r, c);
      expect(shown.index).toBe(`${r},${c}`);
      expect(sameValue('uint16', shown.value, counts.values[r * 2048 + c])).toBe(true);
    }
    // zarrita reads shard indexes from the end only; numdecode's read reads this one from the start.
    const labels = await expectedArray('sharded_v3.zarr', 'labels');
    for (const path of ['/labels_index_start', '/labels']) {
      await selectArray(path);
      expect(await page.isVisible('#zarr-slice-error')).toBe(false);
      const shown = await valueAt(300, 650);
      expect(sameValue('uint32', shown.value, labels.values[300 * 700 + 650])).toBe(true);
    }
  });

  // The corpus' sharded store opened from a picked or dropped folder: its tree, no chunk fetched
  // over HTTP (read from the files), and counts[r, c] under the cursor as the writer wrote it.
  async function expectShardedStoreFromFiles(r, c) {
    await page.waitForFunction(() => document.getElementById('zarr-title')?.textContent === 'Zarr: sharded_v3.zarr' && document.body.dataset.state === 'ready', null, { timeout: 60000, polling: 50 });
    expect(await page.$$eval('#zarr-tree button[data-path]', (b) => b.map((x) => x.dataset.path))).toEqual(['/counts', '/labels', '/labels_index_start']);
    expect(chunkRequests).toEqual([]);
    const counts = await expectedArray('sharded_v3.zarr', 'counts');
    const shown = await valueAt(r, c);
    expect(shown.index).toBe(`${r},${c}`);
    expect(sameValue('uint16', shown.value, counts.values[r * 2048 + c])).toBe(true);
  }

  test('a picked local folder: the hierarchy from its file list (no consolidated metadata needed)', async () => {
    chunkRequests.length = 0;
    await waitForAction(() => page.setInputFiles('#dir-input', path.join(zarrDir, 'stores', 'sharded_v3.zarr')));
    await expectShardedStoreFromFiles(512, 77);
    expect(await page.textContent('#zarr-fetched-label')).toBe('Read from the disk so far: ');
  });

  test('a dropped folder: a Zarr store read from its files, as a picked one is', async () => {
    const storeDir = path.join(zarrDir, 'stores', 'sharded_v3.zarr');
    // With a file the browser cannot give (a dangling link, say): the store never reads it.
    const drop = await dropFolder(page, storeDir, `${browser.base}/corpus/zarr-pcodec/stores/sharded_v3.zarr`, { unreadable: ['.DS_Store'] });
    chunkRequests.length = 0;
    await waitForAction(drop);
    await expectShardedStoreFromFiles(600, 99);
  });

  test('a dropped folder holding a Zarr store one folder down (the folder a store sits in) opens that store', async () => {
    const storeDir = path.join(zarrDir, 'stores', 'sharded_v3.zarr');
    const drop = await dropFolder(page, storeDir, `${browser.base}/corpus/zarr-pcodec/stores/sharded_v3.zarr`, { parent: 'downloads' });
    chunkRequests.length = 0;
    await waitForAction(drop);
    await expectShardedStoreFromFiles(700, 31);
  });

  test('a picked folder holding several Zarr stores names them and asks for one; a folder holding none says what it looked for', async () => {
    await waitForAction(() => page.setInputFiles('#dir-input', path.join(zarrDir, 'stores')), { error: true });
    expect(await page.getAttribute('body', 'data-state')).toBe('error');
    expect(await page.textContent('#error')).toContain('the folder holds 4 Zarr stores (dtypes_v3.zarr, era5_like_v2.zarr, era5_like_v3.zarr, sharded_v3.zarr): open one of them');
    await waitForAction(() => page.setInputFiles('#dir-input', path.join(zarrDir, 'expected')), { error: true });
    expect(await page.getAttribute('body', 'data-state')).toBe('error');
    const shown = await page.textContent('#error');
    expect(shown).toContain('the folder holds neither a BPCells matrix directory (it has no file "version") nor a Zarr store');
    expect(shown).not.toContain('size()');
    // Dropped, the same folder of several stores.
    const drop = await dropFolder(page, path.join(zarrDir, 'stores'), `${browser.base}/corpus/zarr-pcodec/stores`);
    await waitForAction(drop, { error: true });
    expect(await page.textContent('#error')).toContain('the folder holds 4 Zarr stores (dtypes_v3.zarr, era5_like_v2.zarr, era5_like_v3.zarr, sharded_v3.zarr): open one of them');
  });

  test('dtypes store: float16 and int64 in the plot readout', async () => {
    await openSample('dtypes_v3.zarr');
    for (const [array, dtype] of [['float16', 'float16'], ['int64', 'int64']]) {
      await selectArray(`/${array}`);
      expect((await meta()).dtype).toBe(dtype);
      expect(await summary()).toMatchObject({ covered: '3', requests: '3' });
      const want = await expectedArray('dtypes_v3.zarr', array);
      // Zoom in far enough that one value is under the cursor.
      await page.focus('#zarr-line');
      for (let i = 0; i < 10; i++) await page.keyboard.press('+');
      const shown = await lineValueAt(0.5);
      expect(shown.index).toBeDefined();
      expect(sameValue(dtype, shown.value, want.values[Number(shown.index)])).toBe(true);
    }
  });

  test('other codecs: zstd decoded by zarrita with numcodecs, an unknown codec named, the page stays up', async () => {
    await page.goto(`${browser.base}/web/?open=/tmpstores/mixed.zarr&format=zarr&hints=zstd_f32,fpzip`);
    await page.waitForSelector('body[data-started=yes]', { timeout: 60000 });
    expect(await page.textContent('#zarr-codec-note')).toMatch(/neither numdecode nor zarrita decodes: numcodecs\.fpzip/);
    await selectArray('/zstd_f32');
    expect(await page.$$eval('#zarr-codecs tbody tr', (rows) => rows.map((r) => [...r.cells].slice(0, 3).map((c) => c.textContent)))).toEqual([['bytes', 'codec', 'zarrita'], ['zstd', 'codec', 'zarrita + numcodecs']]);
    expect(await summary()).toMatchObject({ covered: '2', requests: '2' });
    const shown = await lineValueAt(0.75);
    expect(sameValue('float32', shown.value, ZSTD_VALUES[Number(shown.index)])).toBe(true);
    // Not pcodec: the Pco view is not offered that chunk.
    await waitForAction(() => page.click('#zarr-chunk-form button[type=submit]'), { error: true });
    expect(await page.isVisible('#view-pco')).toBe(false);
    expect(await page.textContent('#error')).toMatch(/array \/zstd_f32 is not compressed with pcodec/);
    await selectArray('/fpzip');
    expect(await page.textContent('#zarr-slice-error')).toMatch(/array \/fpzip .*uses the codec numcodecs\.fpzip, which neither numdecode nor zarrita decodes/);
  });

  test('an unconsolidated store by URL alone: no children listed, an array opened by its path', async () => {
    await page.goto(`${browser.base}/web/?open=/corpus/zarr-pcodec/stores/sharded_v3.zarr&format=zarr`);
    await page.waitForSelector('body[data-started=yes]', { timeout: 60000 });
    expect(await page.$$eval('#zarr-tree button[data-path]', (b) => b.length)).toBe(0);
    expect(await page.textContent('#zarr-store-facts')).toMatch(/No consolidated metadata/);
    await page.fill('#zarr-add-path', 'labels');
    await waitForAction(() => page.click('#zarr-add button[type=submit]'));
    await page.waitForFunction(() => document.getElementById('zarr-slice-summary').dataset.path === '/labels', null, { timeout: 60000, polling: 50 });
    expect(await page.$$eval('#zarr-tree button[data-path]', (b) => b.map((x) => x.dataset.path))).toEqual(['/labels']);
    const labels = await expectedArray('sharded_v3.zarr', 'labels');
    const shown = await valueAt(599, 699);
    expect(shown.index).toBe('599,699');
    expect(sameValue('uint32', shown.value, labels.values[599 * 700 + 699])).toBe(true);
  });

  test('a link naming an array: looked up where the store lists nothing; one not there is said, the store\'s own pick drawn', async () => {
    await page.goto(`${browser.base}/web/?open=/corpus/zarr-pcodec/stores/sharded_v3.zarr&format=zarr&array=/labels`);
    await page.waitForSelector('body[data-started=yes]', { timeout: 60000 });
    await page.waitForFunction(() => document.getElementById('zarr-slice-summary')?.dataset.path === '/labels', null, { timeout: 60000, polling: 50 });
    expect(await page.$$eval('#zarr-tree button[data-path]', (b) => b.map((x) => x.dataset.path))).toEqual(['/labels']);
    const labels = await expectedArray('sharded_v3.zarr', 'labels');
    const shown = await valueAt(3, 5);
    expect(sameValue('uint32', shown.value, labels.values[3 * 700 + 5])).toBe(true);
    // Not an array there: the store's own pick is drawn (a consolidated store's largest array), and a message says why.
    for (const [store, array, why] of [
      ['sharded_v3.zarr', '/nothing_here', /sharded_v3\.zarr has no array at \/nothing_here$/],
      ['era5_like_v3.zarr', '/nope', /era5_like_v3\.zarr has no array at \/nope$/],
      ['era5_like_v3.zarr', '/', /era5_like_v3\.zarr has no array at \/ \(it is a group\)$/],
    ]) {
      await page.goto(`${browser.base}/web/?open=/corpus/zarr-pcodec/stores/${store}&format=zarr&array=${array}`);
      await page.waitForSelector('body[data-started=yes]', { timeout: 60000 });
      await page.waitForFunction(() => !document.getElementById('error').hidden, null, { timeout: 60000, polling: 50 });
      expect([store, array, await page.textContent('#error')]).toEqual([store, array, expect.stringMatching(why)]);
      expect(await page.isVisible('#view-zarr')).toBe(true);
      if (store === 'era5_like_v3.zarr') {
        await page.waitForFunction(() => document.getElementById('zarr-slice-summary')?.dataset.path === '/t2m', null, { timeout: 60000, polling: 50 });
      }
    }
  });

  test('a slow store finishing after a later one is dropped, not drawn over it', async () => {
    await page.goto(`${browser.base}/web/`);
    await page.waitForSelector('body[data-started=yes]', { timeout: 60000 });
    const pattern = '**/stores/era5_like_v2.zarr/**';
    const slow = await slowRoute(page, pattern, 700);
    try {
      for (const store of ['era5_like_v2.zarr', 'sharded_v3.zarr']) {
        await page.fill('#url', `${browser.base}/corpus/zarr-pcodec/stores/${store}`);
        await page.selectOption('#format', 'zarr');
        await page.click('#url-form button[type=submit]');
      }
      await page.waitForFunction(() => document.getElementById('zarr-title')?.textContent === 'Zarr: sharded_v3.zarr' && document.body.dataset.state === 'ready', null, { timeout: 60000, polling: 50 });
      // The slow store's metadata requests answered, and none asked for 2 s.
      await slow.untilQuiet();
      expect(slow.answered).toBeGreaterThan(0);
      const shown = await page.evaluate(() => ({
        title: document.getElementById('zarr-title').textContent,
        state: document.body.dataset.state,
        error: document.getElementById('error').hidden ? null : document.getElementById('error').textContent,
      }));
      expect(shown).toEqual({ title: 'Zarr: sharded_v3.zarr', state: 'ready', error: null });
    } finally {
      await page.unroute(pattern);
    }
  });
});
