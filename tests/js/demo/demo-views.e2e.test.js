// The demo page as a scientist meets it (issue 29), in headless Chromium on a desktop and a phone
// screen, in light and dark: every kind of sample (Pco, ALP, BPCells directory and HDF5, Parquet,
// Zarr) is opened and what the page says about it is checked against the data read here in Node:
// axis names and tick labels (coordinate values, row and column names), the exact value under the
// pointer (after a slice change and after another file was opened), a negative value's colour,
// cells not stored, downloads (CSV, NumPy .npy), the link in the address bar restoring the view, a
// tap on a touch screen, the round trips beside the requests, and the messages for files it cannot
// open. Screenshots: test-output/screenshots/, and docs/screenshots/ (one per view and size) with
// NUMDECODE_UPDATE_SCREENSHOTS=1.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import * as numdecode from '../../../js/index.js';
import * as parquet from '../../../js/parquet.js';
import { createStaticServer } from '../../../scripts/serve.mjs';
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable } from '../helpers/chromium.js';
import { corpusRoot, projectRoot } from '../helpers/corpus.js';

const shotsDir = path.join(projectRoot, 'test-output', 'screenshots');
const docsShotsDir = path.join(projectRoot, 'docs', 'screenshots');
const zarrExpected = path.join(corpusRoot, 'zarr-pcodec', 'expected');

// Desktop in light and dark, a phone (touch) in dark and light. Screenshots of the first two.
const MODES = [
  { name: 'desktop', shot: true, options: { viewport: { width: 1280, height: 900 }, colorScheme: 'light' } },
  { name: 'phone', shot: true, options: { viewport: { width: 390, height: 844 }, colorScheme: 'dark', isMobile: true, hasTouch: true } },
  { name: 'desktop-dark', shot: false, options: { viewport: { width: 1280, height: 900 }, colorScheme: 'dark' } },
  { name: 'phone-light', shot: false, options: { viewport: { width: 390, height: 844 }, colorScheme: 'light', isMobile: true, hasTouch: true } },
];

let server;
let base;
let browser;
let tmp;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  await numdecode.init();
  execFileSync(process.execPath, [path.join(projectRoot, 'scripts', 'make-samples.mjs')], { stdio: 'pipe' });
  mkdirSync(shotsDir, { recursive: true });
  // Files no format claims, and a Parquet file cut in half, for the messages.
  tmp = mkdtempSync(path.join(tmpdir(), 'demo-views-'));
  const noise = new Uint8Array(4096);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 7919 + 13) % 251;
  writeFileSync(path.join(tmp, 'noise.bin'), noise);
  const parquet = readFileSync(path.join(corpusRoot, 'parquet-alp', 'alp_spotify1.parquet'));
  writeFileSync(path.join(tmp, 'half.parquet'), parquet.subarray(0, parquet.length >> 1));
  writeFileSync(path.join(tmp, 'empty.pco'), new Uint8Array(0));
  server = createStaticServer({ mounts: [['/', projectRoot], ['/corpus/', corpusRoot], ['/tmpfiles/', tmp]] });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}, 120000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

// ---------------------------------------------------------------- reference data, read here

const f32Text = (v) => {
  for (let p = 1; p <= 9; p++) if (Math.fround(Number(v.toPrecision(p))) === v) return String(Number(v.toPrecision(p)));
  return String(v);
};

/** Does the shown text stand for exactly this value (float32 texts read back as float32)? */
function same(dtype, text, want) {
  if (typeof want === 'bigint') return BigInt(text) === want;
  if (Number.isNaN(want)) return text === 'NaN';
  return dtype === 'f32' ? Object.is(Math.fround(Number(text)), want) : Object.is(Number(text), want);
}

function binArray(file, Type) {
  const b = readFileSync(file);
  return new Type(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

let t2mCache = null;
/** t2m (24 x 181 x 360 float32) read by the package from disk. */
async function t2m() {
  if (!t2mCache) {
    const { openZarr } = await import('../../../js/zarr-explore/explorer.js');
    const z = await openZarr(path.join(corpusRoot, 'zarr-pcodec', 'stores', 'era5_like_v3.zarr'));
    t2mCache = { values: (await z.read('/t2m', '')).values, tp: (await z.read('/tp', '')).values };
  }
  return t2mCache;
}
const latitude = () => binArray(path.join(zarrExpected, 'era5_like_v3.zarr', 'latitude.bin'), Float64Array);
const longitude = () => binArray(path.join(zarrExpected, 'era5_like_v3.zarr', 'longitude.bin'), Float64Array);
const times = () => binArray(path.join(zarrExpected, 'era5_like_v3.zarr', 'time.bin'), BigInt64Array);

/** NumPy .npy (version 1.0) as the format's documentation describes it: {descr, fortran, shape, data bytes}. */
function parseNpy(bytes) {
  expect([...bytes.subarray(0, 6)]).toEqual([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]);
  expect([bytes[6], bytes[7]]).toEqual([1, 0]);
  const headerLength = bytes[8] | (bytes[9] << 8);
  expect((10 + headerLength) % 64).toBe(0);
  const header = Buffer.from(bytes.subarray(10, 10 + headerLength)).toString('latin1');
  expect(header.endsWith('\n')).toBe(true);
  const m = /^\{'descr': '([<>|][a-z]\d+)', 'fortran_order': (True|False), 'shape': \(([\d, ]*)\), \}\s*$/.exec(header);
  expect(m).not.toBeNull();
  return { descr: m[1], fortran: m[2] === 'True', shape: m[3].split(',').map((x) => x.trim()).filter(Boolean).map(Number), data: bytes.subarray(10 + headerLength) };
}

// ---------------------------------------------------------------- driving the page

function pageTools(page) {
  const tools = {
    async goto(query = '') {
      await page.goto(`${base}/web/${query}`);
      await page.waitForSelector('body[data-started=yes]', { timeout: 60000 });
    },
    actions: async () => Number(await page.getAttribute('body', 'data-actions')) || 0,
    /** Opens a URL through the URL box; returns {state, error}. */
    async open(url, format = 'auto') {
      const before = await tools.actions();
      await page.fill('#url', url);
      await page.selectOption('#format', format);
      await page.click('#url-form button[type=submit]');
      await page.waitForFunction((n) => Number(document.body.dataset.actions) > n, before, { timeout: 60000, polling: 50 });
      return page.evaluate(() => ({ state: document.body.dataset.state, error: document.getElementById('error').hidden ? null : document.getElementById('error').textContent }));
    },
    visibleViews: () => page.evaluate(() => [...document.querySelectorAll('section.view')].filter((v) => !v.hidden).map((v) => v.id)),
    data: (id) => page.evaluate((x) => ({ ...document.getElementById(x).dataset }), id),
    text: (id) => page.evaluate((x) => document.getElementById(x).textContent, id),
    /** The page point of cell (r, c) of a heatmap canvas. */
    async cell(id, r, c) {
      await page.locator(`#${id}`).scrollIntoViewIfNeeded();
      const box = await page.locator(`#${id}`).boundingBox();
      const d = await tools.data(id);
      return { x: box.x + Number(d.left) + (c + 0.5) * Number(d.cellWidth), y: box.y + Number(d.top) + (r + 0.5) * Number(d.cellHeight) };
    },
    /** The colour [r, g, b] drawn at the centre of heatmap cell (r, c). */
    async cellColor(id, r, c) {
      return page.evaluate(([x, row, col]) => {
        const canvas = document.getElementById(x);
        const d = canvas.dataset;
        const scale = canvas.width / canvas.clientWidth;
        const px = Math.floor((Number(d.left) + (col + 0.5) * Number(d.cellWidth)) * scale);
        const py = Math.floor((Number(d.top) + (row + 0.5) * Number(d.cellHeight)) * scale);
        return [...canvas.getContext('2d').getImageData(px, py, 1, 1).data.slice(0, 3)];
      }, [id, r, c]);
    },
    /** Points at (or, on a touch screen, taps) a point. */
    async point({ x, y }, touch) {
      if (touch) await page.touchscreen.tap(x, y);
      else await page.mouse.move(x, y);
    },
    /** Points at a fraction of a line plot's width (zoomed in `zoom` times first); returns its readout {text, index, value}. */
    async lineAt(selector, readoutSelector, fraction, zoom = 0) {
      await page.focus(selector);
      for (let i = 0; i < zoom; i++) await page.keyboard.press('+');
      await page.locator(selector).scrollIntoViewIfNeeded();
      const box = await page.locator(selector).boundingBox();
      const d = await page.$eval(selector, (c) => ({ ...c.dataset }));
      await page.mouse.move(box.x + Number(d.plotLeft) + fraction * Number(d.plotWidth), box.y + box.height / 2);
      return page.evaluate((sel) => {
        const r = document.querySelector(sel);
        return { text: r.textContent, ...r.dataset };
      }, readoutSelector);
    },
    async download(selector) {
      const [file] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
      return new Uint8Array(readFileSync(await file.path()));
    },
    noSidewaysScroll: () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
  };
  return tools;
}

const describeIf = chromiumAvailable ? describe : describe.skip;

describeIf.each(MODES)('demo on a $name screen', ({ name: mode, shot, options }) => {
  const phone = mode.startsWith('phone');
  let context;
  let page;
  let t;
  const pageErrors = [];

  beforeAll(async () => {
    context = await browser.newContext({ ...options, deviceScaleFactor: 1, acceptDownloads: true });
    page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    t = pageTools(page);
    await t.goto();
  }, 60000);

  afterAll(async () => {
    await context?.close();
    expect(pageErrors).toEqual([]);
  });

  /**
   * One screenshot per view and size (the desktop in light, the phone in dark): the view from its
   * top, or from the part that matters most (`focus`, e.g. the heatmap's card), a screen or so of it.
   */
  async function screenshot(view, focus = null) {
    if (!shot) return;
    const size = phone ? 'phone' : 'desktop';
    const file = path.join(shotsDir, `${view}-${size}.png`);
    await page.mouse.move(0, 0);
    const box = await page.evaluate((sel) => {
      document.activeElement?.blur();
      const v = [...document.querySelectorAll('section.view')].find((s) => !s.hidden);
      const from = (sel && document.querySelector(sel)) || v;
      const [r, end] = [from.getBoundingClientRect(), v.getBoundingClientRect()];
      return { y: r.top + window.scrollY, height: end.bottom - r.top };
    }, focus);
    const width = options.viewport.width;
    await page.screenshot({ path: file, fullPage: true, clip: { x: 0, y: Math.max(0, box.y - 8), width, height: Math.min(box.height + 16, phone ? 1200 : 1000) } });
    if (process.env.NUMDECODE_UPDATE_SCREENSHOTS === '1') {
      mkdirSync(docsShotsDir, { recursive: true });
      copyFileSync(file, path.join(docsShotsDir, `${view}-${size}.png`));
    }
  }

  test('the page follows the colour scheme, and every format is in the menus and texts', async () => {
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const [r, g, b] = bg.match(/\d+/g).map(Number);
    if (options.colorScheme === 'dark') expect(r + g + b).toBeLessThan(120);
    else expect(r + g + b).toBeGreaterThan(650);
    const header = await page.textContent('header');
    for (const f of ['Pco', 'ALP', 'Parquet', 'BPCells', 'HDF5', 'Zarr']) expect(header).toContain(f);
    const drop = await t.text('drop-help');
    for (const f of ['Pco', 'ALP', 'Parquet', 'HDF5', 'BPCells', 'Zarr']) expect(drop).toContain(f);
    const formats = await page.$$eval('#format option', (o) => o.map((x) => x.value));
    expect(formats).toEqual(expect.arrayContaining(['pco', 'alp-f32', 'alp-f64', 'parquet', 'hdf5', 'bpcells', 'zarr']));
    const groups = await page.$$eval('#samples optgroup', (g) => g.map((x) => x.label));
    for (const g of ['/corpus/pco', '/corpus/alp', '/corpus/zarr-pcodec', '/corpus/parquet-alp', '/corpus/bpcells)', '/corpus/bpcells-hdf5']) {
      expect(groups.some((label) => label.includes(g))).toBe(true);
    }
    expect(await page.$$eval('#samples option', (o) => o.some((x) => x.value.includes('matrix.h5')))).toBe(true);
  });

  test('Pco: axes named, chunk boundaries drawn, the exact value under the pointer, the zoom in the link', async () => {
    const file = 'multichunk_i64_mixed_modes.pco';
    expect(await t.open(`../corpus/pco/${file}`)).toEqual({ state: 'ready', error: null });
    const parts = numdecode.pco.decodeChunks(new Uint8Array(readFileSync(path.join(corpusRoot, 'pco', file))));
    const canvas = '#view-pco canvas.chart:not(.short)';
    expect(await page.$eval(canvas, (c) => ({ x: c.dataset.xName, y: c.dataset.yName }))).toEqual({ x: 'value index', y: 'value (i64)' });
    expect(await page.$eval('#view-pco [data-boundaries]', (s) => s.dataset.boundaries)).toBe(String(parts.length - 1));
    await screenshot('pco', phone ? '#pco-values' : null);
    const all = parts.flatMap((p) => [...p.values]);
    const readout = await t.lineAt(canvas, '#view-pco .readout', 0.5, 4); // fewer values than pixels
    expect(readout.text).toBe(`value[${readout.index}] = ${readout.value}`);
    expect(BigInt(readout.value)).toBe(all[Number(readout.index)]);
    // The zoom is in the address; the link restores it.
    await page.mouse.move(1, 1);
    const link = page.url();
    const [i0, i1] = new URL(link).searchParams.get('view').split('-').map(Number);
    const shown = await page.textContent('#view-pco .readout');
    expect(shown).toBe(`showing values ${i0} to ${i1 - 1} of ${all.length}`);
    await t.goto(new URL(link).search);
    expect(await page.textContent('#view-pco .readout')).toBe(shown);
    expect(await t.noSidewaysScroll()).toBeLessThanOrEqual(0);
  }, 60000);

  test('ALP: float32 values printed as float32, exceptions marked, the histogram axes named', async () => {
    const file = 'f32_neg3_n3000.alp';
    expect(await t.open(`../corpus/alp/${file}`, 'alp-f32')).toEqual({ state: 'ready', error: null });
    const values = numdecode.alp.decode(new Uint8Array(readFileSync(path.join(corpusRoot, 'alp', file))), 'f32');
    await screenshot('alp', phone ? '#alp-values' : null);
    const first = await page.$$eval('#alp-values [data-stat=first] li', (li) => li.map((x) => x.textContent));
    first.forEach((text, i) => expect(text).toBe(f32Text(values[i])));
    const readout = await t.lineAt('#alp-values canvas.chart:not(.short)', '#alp-values .readout', 0.37, 4);
    expect(readout.text).toBe(`value[${readout.index}] = ${f32Text(values[Number(readout.index)])}`);
    const hist = await page.$eval('#alp-values canvas.chart.short', (c) => ({ x: c.dataset.xName, y: c.dataset.yName }));
    expect(hist).toEqual({ x: 'value (f32)', y: 'count' });
    expect(await page.$eval('#alp-bits', (c) => ({ x: c.dataset.xName, y: c.dataset.yName }))).toEqual({ x: 'vector', y: 'bits per value' });
    expect(await t.noSidewaysScroll()).toBeLessThanOrEqual(0);
  }, 60000);

  test('BPCells directory: names on the axes and in the readout, a negative value drawn blue, downloads', async () => {
    const dir = path.join(corpusRoot, 'bpcells', 'packed_float_col_names', 'matrix');
    expect(await t.open('../corpus/bpcells/packed_float_col_names/matrix/', 'bpcells')).toEqual({ state: 'ready', error: null });
    const matrix = await numdecode.bpcells.open(dir);
    const [rowNames, colNames] = [await matrix.rowNames(), await matrix.colNames()];
    const [nrow, ncol] = matrix.shape;
    const { idxptr, index, val } = await matrix.read(0, ncol);
    const dense = new Float32Array(nrow * ncol);
    for (let c = 0; c < ncol; c++) for (let p = idxptr[c]; p < idxptr[c + 1]; p++) dense[index[p] * ncol + c] = val[p];
    // The block shows every row and column: names along the axes.
    const heat = await t.data('bp-heatmap');
    expect(heat.xName).toBe('column (name)');
    expect(heat.yName).toBe('row (name)');
    for (const [c, label] of JSON.parse(heat.xTicks)) expect(label).toBe(colNames[c]);
    for (const [r, label] of JSON.parse(heat.yTicks)) expect(label).toBe(rowNames[r]);
    expect(await t.data('bp-colorbar')).toMatchObject({ title: 'value (f32)', scale: 'diverging' });
    // Row 53, column 0 is negative (-18.82...): its readout is exact in float32, its colour blue.
    expect(dense[53 * ncol]).toBeLessThan(0);
    await t.point(await t.cell('bp-heatmap', 53, 0), phone);
    expect(await t.text('bp-heat-readout')).toBe(`row 53 (${rowNames[53]}), column 0 (${colNames[0]}): ${f32Text(dense[53 * ncol])}`);
    const neg = await t.cellColor('bp-heatmap', 53, 0);
    expect(neg[2]).toBeGreaterThan(neg[0] + 40);
    const posAt = dense.findIndex((v) => v > 1);
    const pos = await t.cellColor('bp-heatmap', Math.floor(posAt / ncol), posAt % ncol);
    expect(pos[0]).toBeGreaterThan(pos[2] + 40);
    const zeroAt = dense.findIndex((v) => v === 0);
    const zero = await t.cellColor('bp-heatmap', Math.floor(zeroAt / ncol), zeroAt % ncol);
    expect(Math.max(...zero) - Math.min(...zero)).toBeLessThanOrEqual(12); // neutral: white, or the dark grey
    // The stems plot names its axes too.
    expect(await t.data('bp-vector')).toMatchObject({ xName: 'row index', yName: 'value (f32)' });
    // The block as .npy (float32, 60 x 25) and as CSV with the names.
    const npy = parseNpy(await t.download('#bp-npy'));
    expect(npy).toMatchObject({ descr: '<f4', fortran: false, shape: [nrow, ncol] });
    expect(Buffer.compare(Buffer.from(npy.data), Buffer.from(dense.buffer))).toBe(0);
    const csv = Buffer.from(await t.download('#bp-csv')).toString('utf8').trimEnd().split('\n').map((l) => l.split(','));
    expect(csv[0]).toEqual(['row', ...colNames]);
    expect(csv[54][0]).toBe(rowNames[53]);
    expect(csv[54][1]).toBe(f32Text(dense[53 * ncol]));
    // The column and block are in the address.
    expect(new URL(page.url()).searchParams.get('block')).toBe(`0,${nrow},0,${ncol}`);
    expect(await t.noSidewaysScroll()).toBeLessThanOrEqual(0);
    await screenshot('bpcells-directory', '#bp-heat');
  }, 60000);

  test('BPCells HDF5: another file replaces the readout; its names, values and round trips', async () => {
    // The pointer rests on the previous matrix's heatmap while another file opens.
    await t.open('../corpus/bpcells/packed_float_col_names/matrix/', 'bpcells');
    await t.point(await t.cell('bp-heatmap', 3, 3), phone);
    expect(await t.text('bp-heat-readout')).toMatch(/^row 3 \(r3\), column 3 \(c3\)/);
    const file = path.join(corpusRoot, 'bpcells-hdf5', 'large_packed_uint_col_20000x2000', 'matrix.h5');
    expect(await t.open('../corpus/bpcells-hdf5/large_packed_uint_col_20000x2000/matrix.h5')).toEqual({ state: 'ready', error: null });
    expect(await t.text('bp-title')).toContain('large_packed_uint_col_20000x2000/matrix.h5');
    // The group's arrays are datasets, named as such (a directory's are files).
    const arrays = await page.$$eval('#bp-arrays tbody tr', (rows) => rows.map((r) => r.cells[0].textContent));
    expect(arrays).toEqual(['index 4 datasets', 'val 3 datasets', 'idxptr 1 dataset']);
    // Nothing of the earlier matrix: the readout speaks of this one, or asks to point.
    const before = await t.text('bp-heat-readout');
    expect(before).not.toMatch(/\(r\d+\)|\(c\d+\)/);
    const matrix = await numdecode.bpcells.open(file);
    const [rowNames, colNames] = [await matrix.rowNames(), await matrix.colNames()];
    // A column of the block (64 rows x 128 columns) with a non-zero in it.
    let c = 1;
    let got = await matrix.read(c, c + 1);
    while (!(got.index.length && got.index[0] < 64)) got = await matrix.read(++c, c + 1);
    const r = got.index[0];
    await t.point(await t.cell('bp-heatmap', r, c), phone);
    expect(await t.text('bp-heat-readout')).toBe(`row ${r} (${rowNames[r]}), column ${c} (${colNames[c]}): ${got.val[0]}`);
    expect(colNames[c]).toMatch(/^AAACCTG_/);
    const heat = await t.data('bp-heatmap');
    for (const [c, label] of JSON.parse(heat.xTicks)) expect(label).toBe(colNames[c]);
    expect(await t.data('bp-colorbar')).toMatchObject({ title: 'value (u32)', scale: 'counts' });
    // Round trips beside requests: at least one, never more than the requests.
    await page.waitForTimeout(400);
    const requests = Number((await t.text('bp-requests')).replace(/,/g, ''));
    const trips = Number((await t.text('bp-round-trips')).replace(/,/g, ''));
    expect(trips).toBeGreaterThan(0);
    expect(trips).toBeLessThanOrEqual(requests);
    expect(await page.isVisible('#bp-round-trips')).toBe(true);
    // A copied link restores the column and the block.
    await page.fill('#bp-pick-index', '7');
    await page.fill('#bp-pick-name', '');
    let n = await t.actions();
    await page.click('#bp-pick button[type=submit]');
    await page.waitForFunction((x) => Number(document.body.dataset.actions) > x, n);
    await page.fill('#bp-r0', '100');
    await page.fill('#bp-c0', '40');
    n = await t.actions();
    await page.click('#bp-heat button[type=submit]');
    await page.waitForFunction((x) => Number(document.body.dataset.actions) > x, n);
    const link = page.url();
    const summary = await t.text('bp-vector-summary');
    await t.goto(new URL(link).search);
    expect(await t.text('bp-vector-summary')).toMatch(new RegExp(`^column 7 \\(${colNames[7]}\\)`));
    expect((await t.text('bp-vector-summary')).split(';')[0]).toBe(summary.split(';')[0]);
    expect(await t.text('bp-heat-summary')).toMatch(/^rows 100 to 163, columns 40 to 167:/);
    expect(await t.noSidewaysScroll()).toBeLessThanOrEqual(0);
    await screenshot('bpcells-hdf5', phone ? '#bp-heat' : null);
  }, 90000);

  test('BPCells: a sum past 2^33 shown exactly, a 1 x 1 block from its value to its value, and an empty matrix leaves nothing of the last one on show', async () => {
    const h5 = (name) => path.join(corpusRoot, 'bpcells-hdf5', name, 'matrix.h5');
    const big = await numdecode.bpcells.open(h5('uint_values_ge_2p31'));
    const { val } = await big.read(0, 1);
    const sum = val.reduce((a, v) => a + v, 0);
    expect(sum).toBeGreaterThan(2 ** 33); // the case: 1.0737419e+1 was shown, the exponent's zero trimmed
    expect(await t.open('../corpus/bpcells-hdf5/uint_values_ge_2p31/matrix.h5')).toEqual({ state: 'ready', error: null });
    expect(await t.text('bp-vector-summary')).toContain(`, sum ${sum}; `);
    big.close();
    expect(await t.open('../corpus/bpcells-hdf5/one_by_one_uint/matrix.h5')).toEqual({ state: 'ready', error: null });
    const one = await numdecode.bpcells.open(h5('one_by_one_uint'));
    const [value] = (await one.read(0, 1)).val;
    one.close();
    expect(value).toBeGreaterThan(0);
    expect(await t.text('bp-heat-summary')).toMatch(new RegExp(`^rows 0 to 0, columns 0 to 0: 1 non-zero, from ${value} to ${value};`));
    expect(await t.text('bp-vector-summary')).toMatch(/: 1 non-zero of 1 rows, /);
    // 10 x 0 after a matrix with a vector and a block on show
    expect(await t.open('../corpus/bpcells-hdf5/packed_uint_col_counts_names/matrix.h5')).toEqual({ state: 'ready', error: null });
    expect(Number((await t.data('bp-vector-summary')).nnz)).toBeGreaterThan(0);
    expect(await page.$$eval('#bp-vector-table tbody tr', (rows) => rows.length)).toBeGreaterThan(0);
    expect(await t.open('../corpus/bpcells-hdf5/zero_cols_10x0/matrix.h5')).toEqual({ state: 'ready', error: null });
    expect(await t.text('bp-vector-summary')).toBe('no columns to show: the matrix is 10 × 0');
    expect(await t.text('bp-heat-summary')).toBe('no block to show: the matrix is 10 × 0');
    expect(await page.$$eval('#bp-vector-table tr', (rows) => rows.length)).toBe(0);
    const blank = await page.$eval('#bp-heatmap', (c) => c.getContext('2d').getImageData(0, 0, c.width, c.height).data.every((b) => b === 0));
    expect(blank).toBe(true);
  }, 90000);

  test('Parquet: a column with nulls: statistics of its values only, null in the first values and the CSV, NaN in the .bin', async () => {
    // hyparquet-writer: an OPTIONAL DOUBLE column, every 10th row (from row 3) null.
    const { parquetWriteBuffer } = await import('hyparquet-writer');
    const x = Array.from({ length: 1000 }, (_, i) => (i % 10 === 3 ? null : 100 + i * 0.5));
    writeFileSync(path.join(tmp, 'nulls.parquet'), new Uint8Array(parquetWriteBuffer({ columnData: [{ name: 'x', data: x, type: 'DOUBLE' }] })));
    expect(await t.open('/tmpfiles/nulls.parquet')).toEqual({ state: 'ready', error: null });
    const stat = (key) => page.$eval(`#pq-values [data-stat=${key}]`, (dd) => dd.textContent);
    const present = x.filter((v) => v !== null);
    expect(await stat('nulls')).toBe('100');
    expect(await stat('count')).toBe('900'); // was 1,000: the nulls counted as zeros
    expect(await stat('min')).toBe('100'); // was 0
    expect(await stat('max')).toBe(String(Math.max(...present)));
    expect(Number((await stat('mean')).replace(/,/g, ''))).toBeCloseTo(present.reduce((a, b) => a + b, 0) / present.length, 2);
    const first = await page.$$eval('#pq-values [data-stat=first] li', (li) => li.map((e) => e.textContent));
    expect(first).toEqual(x.slice(0, first.length).map((v) => (v === null ? 'null' : String(v))));
    const csv = new TextDecoder().decode(await t.download('#pq-values button:text("Download .csv")')).trim().split('\n');
    expect(csv).toEqual(['value', ...x.map((v) => (v === null ? '""' : String(v)))]);
    const bin = await t.download('#pq-values button:text("Download .bin")');
    const rows = new Float64Array(bin.buffer, bin.byteOffset, bin.byteLength / 8);
    expect(Array.from(rows, (v, i) => (x[i] === null ? Number.isNaN(v) : v === x[i])).every(Boolean)).toBe(true);
  }, 90000);

  test('the browser\'s "ResizeObserver loop" notice is not shown as an error; an uncaught error is', async () => {
    expect(await t.open('../corpus/pco/' + 'bench_f64_sensor_2m.pco')).toEqual({ state: 'ready', error: null });
    const shown = (message, error) => page.evaluate(([m, withError]) => {
      window.dispatchEvent(new ErrorEvent('error', { message: m, error: withError ? new Error(m) : null }));
      const box = document.getElementById('error');
      return box.hidden ? null : box.textContent;
    }, [message, error]);
    expect(await shown('ResizeObserver loop completed with undelivered notifications.', false)).toBe(null);
    expect(await shown('ResizeObserver loop limit exceeded', false)).toBe(null);
    expect(await shown('something broke', true)).toMatch(/Unexpected error.*something broke/);
  }, 90000);

  test('Parquet: a column that cannot be read leaves nothing of the column before on show', async () => {
    const bytes = readFileSync(path.join(corpusRoot, 'parquet-alp', 'alp_spotify1.parquet'));
    const file = await parquet.open(new Uint8Array(bytes));
    const { offset } = (await file.inspect({ columns: ['energy'] })).rowGroups[0].columns[0];
    const bad = Buffer.from(bytes);
    bad.fill(0xff, offset, offset + 13); // energy's first page header
    writeFileSync(path.join(tmp, 'bad-energy.parquet'), bad);
    expect(await t.open('/tmpfiles/bad-energy.parquet')).toEqual({ state: 'ready', error: null });
    expect(await page.$eval('#pq-values canvas.chart:not(.short)', (c) => c.dataset.yName)).toBe('danceability (f64)');
    const n = await t.actions();
    await page.selectOption('#pq-column', 'energy');
    await page.waitForFunction((x) => Number(document.body.dataset.actions) > x, n);
    // where the header is in the file (it said "at byte 0": of the column chunk)
    expect(await page.textContent('#error')).toContain(`column energy, row group 0, page 0: page header at byte ${offset} of the file is unreadable`);
    expect(await t.text('pq-values-failed')).toBe('energy could not be read: see the message above.');
    expect(await page.$$eval('#pq-values canvas', (c) => c.length)).toBe(0); // danceability's plot is gone
    expect(await page.$$eval('#pq-pages tr', (rows) => rows.length)).toBe(0);
  }, 90000);

  test('Parquet: the page boundaries, the exact value under the pointer, tables that show the ALP view button', async () => {
    expect(await t.open('../corpus/parquet-alp/alp_spotify1.parquet')).toEqual({ state: 'ready', error: null });
    const expected = readFileSync(path.join(corpusRoot, 'parquet-alp', 'alp_spotify1_expect.csv'), 'utf8').trim().split('\n').slice(1).map((l) => Number(l.split(',')[0]));
    expect(await page.$eval('#pq-values canvas.chart:not(.short)', (c) => c.dataset.yName)).toBe('danceability (f64)');
    await screenshot('parquet', phone ? '#pq-values' : null);
    const readout = await t.lineAt('#pq-values canvas.chart:not(.short)', '#pq-values .readout', 0.5, 10);
    expect(Object.is(Number(readout.value), expected[Number(readout.index)])).toBe(true);
    // The pages table: its ALP view button in sight within the table's box (the first column).
    const button = page.locator('#pq-pages button[data-alp-page]').first();
    await button.scrollIntoViewIfNeeded();
    const [b, wrap] = [await button.boundingBox(), await page.locator('#pq-pages').locator('xpath=..').boundingBox()];
    expect(b.x).toBeGreaterThanOrEqual(wrap.x);
    expect(b.x + b.width).toBeLessThanOrEqual(wrap.x + wrap.width);
    // The columns table scrolls sideways on a phone, and says so (a phone hides its scrollbars).
    const scroll = await page.$eval('#pq-schema', (tbl) => ({
      wide: tbl.parentElement.scrollWidth > tbl.parentElement.clientWidth,
      marked: tbl.parentElement.dataset.overflow,
      hint: getComputedStyle(tbl.parentElement, '::after').content,
    }));
    if (phone) expect(scroll.wide).toBe(true);
    if (scroll.wide) expect(scroll).toMatchObject({ marked: 'yes', hint: '"scroll sideways for more columns →"' });
    expect(new URL(page.url()).searchParams.get('column')).toBe('danceability');
    expect(await t.noSidewaysScroll()).toBeLessThanOrEqual(0);
    // Read over HTTP: requests, round trips (at least one, never more than the requests) and bytes.
    await page.waitForTimeout(400);
    const fetched = async () => ({
      requests: Number((await t.text('pq-requests')).replace(/,/g, '')),
      trips: Number((await t.text('pq-round-trips')).replace(/,/g, '')),
      bytes: await t.text('pq-bytes'),
    });
    const before = await fetched();
    expect(before.requests).toBeGreaterThan(0);
    expect(before.trips).toBeGreaterThan(0);
    expect(before.trips).toBeLessThanOrEqual(before.requests);
    // in words that agree with the counts ("1 request in 1 round trip")
    expect(await page.textContent('#pq-requests-word')).toBe(before.requests === 1 ? ' request in ' : ' requests in ');
    expect(await page.textContent('#pq-round-trips-word')).toBe(before.trips === 1 ? ' round trip, ' : ' round trips, ');
    expect(before.bytes).toMatch(/^[\d.]+ (B|KiB|MiB)$/);
    // Opening fetched the footer and the plotted column, not the file: the other columns' pages
    // are not read ("–" in the columns table) until they are plotted.
    const kib = (text) => Number(text.split(' ')[0]) * { B: 1 / 1024, KiB: 1, MiB: 1024 }[text.split(' ')[1]];
    const fileKib = readFileSync(path.join(corpusRoot, 'parquet-alp', 'alp_spotify1.parquet')).length / 1024;
    expect(kib(before.bytes)).toBeLessThan(fileKib / 2);
    const pagesColumn = async () => page.$$eval('#pq-schema tbody tr', (rows) => Object.fromEntries(rows.map((r) => [r.cells[0].textContent, r.cells[5].textContent])));
    const counted = await pagesColumn();
    expect(Number(counted.danceability)).toBeGreaterThan(0);
    expect(Object.values(counted).filter((v) => v === '–').length).toBe(Object.keys(counted).length - 1);
    // Another column plotted: its pages are read, and counted beside the first's.
    const other = await page.$eval('#pq-column', (sel) => [...sel.options].map((o) => o.value).find((v) => v !== 'danceability'));
    const n = await t.actions();
    await page.selectOption('#pq-column', other);
    await page.waitForFunction((x) => Number(document.body.dataset.actions) > x, n);
    const after = await pagesColumn();
    expect(Number(after[other])).toBeGreaterThan(0);
    expect(after.danceability).toBe(counted.danceability);
    await page.selectOption('#pq-column', 'danceability');
    await page.waitForFunction((x) => Number(document.body.dataset.actions) > x, n + 1);
    await page.waitForTimeout(400);
    const beforeAlp = await fetched(); // danceability again: from the cache
    expect(beforeAlp.requests).toBe(before.requests + 1);
    await button.click();
    await page.waitForFunction(() => !document.getElementById('view-alp').hidden && document.body.dataset.state === 'ready');
    expect(await t.text('alp-title')).toContain('danceability');
    // The page came from the open file's cache: nothing more fetched.
    await page.waitForTimeout(400);
    expect(await fetched()).toEqual(beforeAlp);
  }, 60000);

  test('Zarr: coordinates on the axes, units on the colour bar, the readout after a slice change, cells not stored, a link that restores it', async () => {
    const data = await t2m();
    const [lat, lon, time] = [latitude(), longitude(), times()];
    await t.goto('?open=/corpus/zarr-pcodec/stores/era5_like_v3.zarr&format=zarr');
    const heat = await t.data('zarr-heatmap');
    expect(heat.xName).toBe('longitude (degrees_east)');
    expect(heat.yName).toBe('latitude (degrees_north)');
    const deg = (v, pos, neg) => `${Math.abs(v)}°${v < 0 ? neg : pos}`;
    for (const [c, label] of JSON.parse(heat.xTicks)) expect(label).toBe(deg(lon[c], 'E', 'W'));
    for (const [r, label] of JSON.parse(heat.yTicks)) expect(label).toBe(deg(lat[r], 'N', 'S'));
    expect(JSON.parse(heat.yTicks).length).toBeGreaterThan(1);
    const bar = await t.data('zarr-colorbar');
    expect(bar).toMatchObject({ title: '2 metre temperature (K)', scale: 'sequential' });
    const barBox = await page.locator('#zarr-colorbar').boundingBox();
    const cardBox = await page.locator('#zarr-slice-card').boundingBox();
    expect(barBox.width).toBeGreaterThan(cardBox.width * 0.85); // the full width, not half of it
    // The value under the pointer, with its coordinates.
    const at = (ti, r, c) => data.values[(ti * 181 + r) * 360 + c];
    await t.point(await t.cell('zarr-heatmap', 20, 200), phone);
    let readout = await t.data('zarr-heat-readout');
    expect(readout.index).toBe('0,20,200');
    expect(readout.value).toBe(f32Text(at(0, 20, 200)));
    expect(JSON.parse(readout.coords)).toEqual([`${time[0]} nanoseconds since 1970-01-01`, String(lat[20]), String(lon[200])]);
    expect(await t.text('zarr-heat-readout')).toContain(`= ${f32Text(at(0, 20, 200))} K at time 2024-01-01, latitude ${deg(lat[20], 'N', 'S')}, longitude ${deg(lon[200], 'E', 'W')}`);
    // Time 5, set from the keyboard's side (the pointer stays where it is): the readout reads the
    // same cell of the new slice, and the slider says the date.
    let n = await t.actions();
    await page.evaluate(() => {
      const input = document.querySelector('#zarr-dims input[data-dim="0"][data-field=index]');
      input.value = '5';
      input.dispatchEvent(new Event('change'));
    });
    await page.waitForFunction((x) => Number(document.body.dataset.actions) > x && document.getElementById('zarr-slice-summary').dataset.slice === '5,:,:', n);
    expect(await page.textContent('#zarr-dims [data-field=coord][data-dim="0"]')).toBe('time = 2024-01-01 05:00');
    readout = await t.data('zarr-heat-readout');
    if (phone) {
      // A finger does not rest on the screen: the readout asks for a tap, with nothing of time 0 left.
      expect(readout.index).toBeUndefined();
    } else {
      expect(readout.index).toBe('5,20,200');
      expect(readout.value).toBe(f32Text(at(5, 20, 200)));
    }
    // Chunk (5, 1, 0) is not stored: hatched and labelled, in the legend and the readout.
    expect((await t.data('zarr-legend')).notStored).toBe('yes');
    expect(await t.text('zarr-legend')).toContain('not stored: reads as the fill value "NaN"');
    await t.point(await t.cell('zarr-heatmap', 150, 20), phone);
    readout = await t.data('zarr-heat-readout');
    expect(readout).toMatchObject({ index: '5,150,20', value: 'NaN', notStored: 'yes' });
    // Hatched: each pixel there is the hatch colour or its background, as the theme sets them.
    const hatch = await page.evaluate(() => ['--plot-hatch', '--plot-hatch-back'].map((v) => {
      const hex = getComputedStyle(document.documentElement).getPropertyValue(v).trim();
      return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    }));
    for (const c of [20, 21, 22, 23]) {
      const color = await t.cellColor('zarr-heatmap', 150, c);
      expect(hatch.some((h) => h.every((v, i) => v === color[i]))).toBe(true);
    }
    // On a touch screen the tap only read the value: the chunk waits in the form, the Pco view stays shut.
    if (phone) {
      expect(await t.visibleViews()).toEqual(['view-zarr']);
      expect(await page.inputValue('#zarr-chunk')).toBe('5,1,0');
      await t.point(await t.cell('zarr-heatmap', 20, 200), true);
      expect(await page.inputValue('#zarr-chunk')).toBe('5,0,1');
      n = await t.actions();
      await page.click('#zarr-chunk-form button[type=submit]');
      await page.waitForFunction((x) => Number(document.body.dataset.actions) > x, n);
      expect(await t.visibleViews()).toEqual(['view-pco']);
      expect(await t.text('pco-title')).toContain('t2m chunk 5.0.1');
      await page.click('#back-to-zarr');
    }
    // The slice downloads as .npy (float32, 181 x 360) and CSV.
    const npy = parseNpy(await t.download('#zarr-npy'));
    expect(npy).toMatchObject({ descr: '<f4', fortran: false, shape: [181, 360] });
    const slice = data.values.subarray(5 * 181 * 360, 6 * 181 * 360);
    expect(Buffer.compare(Buffer.from(npy.data), Buffer.from(slice.buffer, slice.byteOffset, slice.byteLength))).toBe(0);
    const csv = Buffer.from(await t.download('#zarr-csv')).toString('utf8').trimEnd().split('\n');
    expect(csv.length).toBe(181);
    expect(csv[20].split(',')[200]).toBe(f32Text(at(5, 20, 200)));
    // The address holds the array and slice; the link restores them.
    const link = new URL(page.url());
    expect(Object.fromEntries(link.searchParams)).toMatchObject({ array: '/t2m', slice: '5,:,:', roles: 'index,y,x' });
    await t.goto(link.search);
    expect(await t.data('zarr-slice-summary')).toMatchObject({ path: '/t2m', slice: '5,:,:' });
    await t.point(await t.cell('zarr-heatmap', 20, 200), phone);
    expect((await t.data('zarr-heat-readout')).value).toBe(f32Text(at(5, 20, 200)));
    // Round trips beside the requests.
    await page.waitForFunction(() => Number(document.getElementById('zarr-round-trips').textContent) > 0, null, { timeout: 5000 });
    expect(Number(await t.text('zarr-round-trips'))).toBeLessThanOrEqual(Number((await t.text('zarr-requests')).replace(/,/g, '')));
    expect(await t.noSidewaysScroll()).toBeLessThanOrEqual(0);
    await screenshot('zarr', '#zarr-slice-card');
  }, 90000);

  test('Zarr: an unwritten all-zero chunk of tp is hatched; the time coordinate plots as dates', async () => {
    const { tp } = await t2m();
    await t.goto('?open=/corpus/zarr-pcodec/stores/era5_like_v3.zarr&format=zarr&array=tp&slice=3,:,:');
    // Chunk (0, 1, 0): times 0-11, rows 64-127, columns 0-127, never written (it reads as the fill value 0).
    expect(await t.text('zarr-legend')).toContain('not stored: reads as the fill value 0');
    await t.point(await t.cell('zarr-heatmap', 100, 50), phone);
    expect(await t.data('zarr-heat-readout')).toMatchObject({ index: '3,100,50', value: '0', notStored: 'yes' });
    expect(tp[(3 * 181 + 100) * 360 + 50]).toBe(0);
    await t.point(await t.cell('zarr-heatmap', 10, 50), phone);
    expect((await t.data('zarr-heat-readout')).notStored).toBe('');
    expect(await t.data('zarr-colorbar')).toMatchObject({ title: 'Total precipitation (m)' });
    // The 1-D time array: its values are dates.
    const time = times();
    await t.goto('?open=/corpus/zarr-pcodec/stores/era5_like_v3.zarr&format=zarr&array=time');
    expect(await page.$eval('#zarr-line', (c) => c.dataset.yName)).toBe('time (UTC)');
    if (!phone) {
      const shown = await t.lineAt('#zarr-line', '#zarr-line-readout', 0.5);
      const k = Number(shown.index);
      expect(BigInt(shown.value)).toBe(time[k]);
      expect(shown.text).toBe(`time[${k}] = 2024-01-01 ${String(k).padStart(2, '0')}:00`);
    }
    await screenshot('zarr-time', '#zarr-slice-card');
  }, 60000);

  test('clear messages, each for its case, and no earlier view left under them', async () => {
    await t.open('../corpus/pco/classic_f32_n1000.pco');
    const cases = [
      ['../corpus/bpcells-hdf5/no-such-matrix.h5', 'auto', /^Could not open .*HTTP 404 Not Found: there is no file at http:\/\/127\.0\.0\.1:\d+\/corpus\/bpcells-hdf5\/no-such-matrix\.h5$/],
      ['/tmpfiles/noise.bin', 'auto', /noise\.bin is not a format I recognise \(checked: Pco, Parquet, HDF5, Zarr, BPCells.*if it is one, choose ALP f32 or ALP f64 in the Format menu/],
      ['samples/damaged.pco', 'auto', /damaged\.pco is damaged, or was written by a newer pcodec than this page reads \(unsupported format: standalone version 255 is newer than 3\)/],
      ['/tmpfiles/half.parquet', 'auto', /half\.parquet looks truncated: it starts like a Parquet file \(PAR1\) but does not end with PAR1/],
      ['/tmpfiles/half.parquet', 'parquet', /half\.parquet looks truncated/],
      ['/tmpfiles/empty.pco', 'auto', /empty\.pco is empty \(0 bytes\): there is nothing in it to decode/],
      // the Format menu left on f32 from an earlier page
      ['../corpus/alp/f64_int_n3000.alp', 'alp-f32', /ALP vector 0: exponent 14 exceeds 10 for f32 \(it reads as an f64 page: choose "ALP f64" in the Format menu\)$/],
    ];
    for (const [url, format, message] of cases) {
      const r = await t.open(url, format);
      expect([url, r.state]).toEqual([url, 'error']);
      expect(r.error).toMatch(message);
      expect(await t.visibleViews()).toEqual([]);
    }
    // A picked truncated Parquet file (bytes in memory) says the same.
    const n = await t.actions();
    await page.selectOption('#format', 'auto');
    await page.setInputFiles('#file-input', path.join(tmp, 'half.parquet'));
    await page.waitForFunction((x) => Number(document.body.dataset.actions) > x, n);
    expect(await t.text('error')).toMatch(/half\.parquet looks truncated/);
    expect(await page.evaluate(() => document.body.dataset.link)).toBe('local');
    expect(await page.isVisible('#link-local')).toBe(true);
  }, 60000);

  if (phone) {
    test('a phone brings the results into view', async () => {
      await t.goto();
      await page.evaluate(() => window.scrollTo(0, 0));
      const value = await page.evaluate(() => [...document.querySelectorAll('#samples option')].find((o) => o.value.includes('packed_uint_col_names/'))?.value);
      await page.selectOption('#samples', value);
      const n = await t.actions();
      await page.click('#sample-form button[type=submit]');
      await page.waitForFunction((x) => Number(document.body.dataset.actions) > x, n);
      const top = await page.evaluate(() => document.getElementById('view-bpcells').getBoundingClientRect().top);
      expect(top).toBeGreaterThanOrEqual(-1);
      expect(top).toBeLessThan(200);
    });
  }
});
