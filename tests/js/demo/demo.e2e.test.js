// The demo page (web/) in real headless Chromium: every sample of every format is opened
// through the page and the numbers it shows are checked against the same file decoded here in
// Node with the package API. Also: damaged files show an error, BPCells fetches only what it
// needs, the page makes no request to any host but 127.0.0.1, and a phone-sized screen works.
// Screenshots go to test-output/screenshots/ (docs/screenshots/ comes from demo-views.e2e.test.js).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import * as numdecode from '../../../js/index.js';
import { createStaticServer } from '../../../scripts/serve.mjs';
import { corpusRoot, projectRoot, readJson } from '../helpers/corpus.js';
import { halfToNumber } from '../helpers/float16.js';
import { dropFolder } from '../helpers/drop-folder.js';
import { slowRoute } from '../helpers/slow-route.js';

const CHROMIUM = '/usr/bin/chromium';
const shotsDir = path.join(projectRoot, 'test-output', 'screenshots');
const samplesDir = path.join(projectRoot, 'web', 'samples');

let server;
let base;
let context;
let page;
let userDataDir;
const foreignRequests = [];
const pageErrors = [];

beforeAll(async () => {
  await numdecode.init();
  // The page's own samples, made by the project's encoder.
  execFileSync(process.execPath, [path.join(projectRoot, 'scripts', 'make-samples.mjs')], { stdio: 'pipe' });
  mkdirSync(shotsDir, { recursive: true });
  server = createStaticServer({ mounts: [['/', projectRoot], ['/corpus/', corpusRoot]] });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
  userDataDir = mkdtempSync(path.join(tmpdir(), 'numdecode-demo-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 900 },
  });
  // Anything not addressed to the demo server's host is recorded and refused.
  await context.route((url) => url.hostname !== '127.0.0.1', (route) => {
    foreignRequests.push(route.request().url());
    return route.abort();
  });
  context.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol.startsWith('http') && url.hostname !== '127.0.0.1') foreignRequests.push(request.url());
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.goto(`${base}/web/`);
  await page.waitForSelector('body[data-started=yes]', { timeout: 60000 });
}, 180000);

afterAll(async () => {
  await context?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  // Checked last: every test's traffic counts.
  expect(foreignRequests).toEqual([]);
  expect(pageErrors).toEqual([]);
});

async function screenshot(name, { fullPage = true } = {}) {
  await page.screenshot({ path: path.join(shotsDir, `${name}.png`), fullPage });
}

/** Opens a URL through the page's URL box and waits for the page to finish with it. */
async function openUrl(url, format) {
  const before = Number(await page.getAttribute('body', 'data-actions')) || 0;
  await page.fill('#url', url);
  await page.selectOption('#format', format);
  await page.click('#url-form button[type=submit]');
  await page.waitForFunction((n) => Number(document.body.dataset.actions) > n, before, { timeout: 60000, polling: 50 });
  return page.evaluate(() => ({ state: document.body.dataset.state, error: document.getElementById('error').hidden ? null : document.getElementById('error').textContent }));
}

/** What the values panel of a view shows. */
function shownValues(viewId) {
  return page.evaluate((id) => {
    const view = document.getElementById(id);
    const stats = {};
    for (const dd of view.querySelectorAll('[data-stat]')) stats[dd.dataset.stat] = dd.textContent;
    stats.first = [...view.querySelectorAll('[data-stat=first] li')].map((li) => li.textContent);
    return stats;
  }, viewId);
}

// ---- independent reference numbers, computed here from the API's output

function asComparable(dtype, v) {
  if (dtype === 'f16') return halfToNumber(v);
  return v;
}

/** Does the shown text stand for exactly this value of dtype? */
function sameValue(dtype, text, expected) {
  expected = asComparable(dtype, expected);
  if (typeof expected === 'bigint') return BigInt(text) === expected;
  if (Number.isNaN(expected)) return text === 'NaN';
  const shown = Number(text);
  if (dtype === 'f32') return Math.fround(shown) === expected && Object.is(Math.fround(shown), expected);
  return Object.is(shown, expected);
}

/** min and max (NaN skipped) of the concatenated chunks, each in its own type. */
function extremes(parts) {
  let min = null;
  let max = null;
  for (const { dtype, values } of parts) {
    for (const raw of values) {
      const v = asComparable(dtype, raw);
      if (typeof v === 'number' && Number.isNaN(v)) continue;
      if (min === null || v < min.v) min = { v, dtype };
      if (max === null || v > max.v) max = { v, dtype };
    }
  }
  return { min, max };
}

function checkShown(shown, parts, label) {
  const count = parts.reduce((s, p) => s + p.values.length, 0);
  expect([label, Number(shown.count.replace(/,/g, ''))]).toEqual([label, count]);
  const uniform = new Set(parts.map((p) => p.dtype)).size <= 1;
  const { min, max } = extremes(parts);
  if (min === null) {
    expect([label, shown.min, shown.max]).toEqual([label, '–', '–']);
  } else if (uniform) {
    const dtype = parts[0].dtype;
    // f16 values are checked as the numbers their bits stand for.
    const check = (text, ref) => (dtype === 'f16' ? Object.is(Number(text), ref.v) : sameValue(dtype, text, ref.v));
    expect([label, 'min', shown.min, check(shown.min, min)]).toEqual([label, 'min', shown.min, true]);
    expect([label, 'max', shown.max, check(shown.max, max)]).toEqual([label, 'max', shown.max, true]);
  }
  const expectedFirst = [];
  for (const { dtype, values } of parts) {
    for (let i = 0; i < values.length && expectedFirst.length < 20; i++) expectedFirst.push([dtype, values[i]]);
  }
  expect([label, shown.first.length]).toEqual([label, expectedFirst.length]);
  expectedFirst.forEach(([dtype, v], i) => {
    expect([label, i, shown.first[i], sameValue(dtype, shown.first[i], v)]).toEqual([label, i, shown.first[i], true]);
  });
}

const haveCorpus = existsSync(path.join(corpusRoot, 'pco', 'manifest.json'));

// ---------------------------------------------------------------- first load, Pco

test('first load shows a real sample, with build information', async () => {
  const state = await page.getAttribute('body', 'data-state');
  expect(state).toBe('ready');
  const build = await page.textContent('#build');
  expect(build).toMatch(/numdecode \d+\.\d+\.\d+, .*WebAssembly/);
  const visible = await page.evaluate(() => ['view-pco', 'view-alp', 'view-bpcells'].filter((id) => !document.getElementById(id).hidden));
  expect(visible.length).toBe(1);
  await screenshot('first-load', { fullPage: false });
});

(haveCorpus ? describe : describe.skip)('Pco', () => {
  const cases = haveCorpus ? readJson(path.join(corpusRoot, 'pco'), 'manifest.json').filter((c) => c.format === 'standalone') : [];

  test('every standalone corpus file: count, min, max and first values match the decoder', async () => {
    for (const c of cases) {
      const result = await openUrl(`../corpus/pco/${c.file}`, 'auto');
      expect([c.file, result]).toEqual([c.file, { state: 'ready', error: null }]);
      const bytes = new Uint8Array(readFileSync(path.join(corpusRoot, 'pco', c.file)));
      const parts = numdecode.pco.decodeChunks(bytes);
      checkShown(await shownValues('view-pco'), parts, c.file);
      // The structure tree lists every chunk the decoder reports.
      const info = numdecode.pco.inspect(bytes);
      const chunks = await page.$$eval('#pco-tree details[data-chunk]', (els) => els.length);
      expect([c.file, chunks]).toEqual([c.file, info.chunks.length]);
    }
  }, 600000);

  test('files without chunks: the dtype their header records, or none', async () => {
    for (const [file, dtype] of [['empty_i64_uniform.pco', 'i64'], ['empty_f32.pco', 'none']]) {
      const info = numdecode.pco.inspect(new Uint8Array(readFileSync(path.join(corpusRoot, 'pco', file))));
      expect([file, info.uniformDtype ?? 'none']).toEqual([file, dtype]);
      await openUrl(`../corpus/pco/${file}`, 'pco');
      expect([file, await page.textContent('#view-pco [data-stat=dtype]')]).toEqual([file, dtype]);
      expect([file, await page.textContent('#view-pco [data-stat=count]')]).toEqual([file, '0']);
    }
  });

  test('a multi-chunk file: tree with modes, bins, and a screenshot', async () => {
    await openUrl('../corpus/pco/multichunk_i64_mixed_modes.pco', 'pco');
    const tree = await page.textContent('#pco-tree');
    expect(tree).toContain('IntMult');
    expect(tree).toContain('Dict');
    await page.click('#pco-tree details[data-chunk="1"] details summary');
    const binRows = await page.$$eval('#pco-tree details[data-chunk="1"] details[open] tbody tr', (r) => r.length);
    const info = numdecode.pco.inspect(new Uint8Array(readFileSync(path.join(corpusRoot, 'pco', 'multichunk_i64_mixed_modes.pco'))));
    expect(binRows).toBe(info.chunks[1].latentVars[0].bins.length);
    await screenshot('pco-multichunk');
  });

  test('two million values: envelope plot, zoom by keyboard, downloads', async () => {
    const file = 'bench_f64_sensor_2m.pco';
    await openUrl(`../corpus/pco/${file}`, 'auto');
    await page.click('#pco-tree details[data-chunk="0"] details summary'); // a bins table
    await screenshot('pco');
    const readout = () => page.textContent('#view-pco .readout');
    expect(await readout()).toBe('showing values 0 to 1999999 of 2000000');
    await page.focus('#view-pco canvas.chart');
    await page.keyboard.press('+');
    await page.keyboard.press('+');
    expect(await readout()).toBe('showing values 750000 to 1249999 of 2000000');
    await page.keyboard.press('ArrowRight');
    expect(await readout()).toBe('showing values 875000 to 1374999 of 2000000');
    await page.keyboard.press('0');
    expect(await readout()).toBe('showing values 0 to 1999999 of 2000000');
    // .bin download is the decoded bytes.
    const [bin] = await Promise.all([page.waitForEvent('download'), page.click('#view-pco button:text("Download .bin")')]);
    const binBytes = readFileSync(await bin.path());
    const decoded = numdecode.pco.decode(new Uint8Array(readFileSync(path.join(corpusRoot, 'pco', file))));
    expect(Buffer.compare(binBytes, Buffer.from(decoded.buffer, decoded.byteOffset, decoded.byteLength))).toBe(0);
    const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#view-pco button:text("Download .csv")')]);
    const lines = readFileSync(await csv.path(), 'utf8').trimEnd().split('\n');
    expect(lines.length).toBe(decoded.length + 1);
    for (const i of [0, 1, 999999, decoded.length - 1]) expect(Number(lines[i + 1])).toBe(decoded[i]);
  }, 120000);

  test('damaged files show the decoder\'s message, and the page recovers', async () => {
    const own = await openUrl('samples/damaged.pco', 'auto');
    const ownBytes = new Uint8Array(readFileSync(path.join(samplesDir, 'damaged.pco')));
    expect(() => numdecode.pco.decode(ownBytes)).toThrow();
    let message = '';
    try {
      numdecode.pco.decode(ownBytes);
    } catch (err) {
      message = err.message;
    }
    expect(own.state).toBe('error');
    expect(own.error).toContain(message);
    expect(await page.isVisible('#error')).toBe(true);
    await screenshot('error');
    const corrupt = readJson(path.join(corpusRoot, 'pco'), 'corrupt/manifest.json').cases.filter((c) => c.expect === 'error').slice(0, 5);
    for (const c of corrupt) {
      const r = await openUrl(`../corpus/pco/${c.file}`, 'pco');
      expect([c.file, r.state]).toEqual([c.file, 'error']);
      expect(r.error.length).toBeGreaterThan(20);
    }
    const ok = await openUrl('../corpus/pco/classic_f32_n1000.pco', 'pco');
    expect(ok).toEqual({ state: 'ready', error: null });
  }, 120000);

  test('the file picker, with the format detected by the magic', async () => {
    const file = path.join(corpusRoot, 'pco', 'classic_u16_n1000.pco');
    const before = Number(await page.getAttribute('body', 'data-actions'));
    await page.selectOption('#format', 'auto');
    await page.setInputFiles('#file-input', file);
    await page.waitForFunction((n) => Number(document.body.dataset.actions) > n, before);
    expect(await page.textContent('#pco-title')).toBe('Pco: classic_u16_n1000.pco');
    checkShown(await shownValues('view-pco'), numdecode.pco.decodeChunks(new Uint8Array(readFileSync(file))), 'picked file');
  });

  test('drag and drop of a file', async () => {
    const before = Number(await page.getAttribute('body', 'data-actions'));
    await page.selectOption('#format', 'auto');
    await page.evaluate(async () => {
      const bytes = await (await fetch('../corpus/pco/classic_i32_n1000.pco')).arrayBuffer();
      const dataTransfer = new DataTransfer();
      dataTransfer.items.add(new File([bytes], 'dropped.pco'));
      document.getElementById('drop').dispatchEvent(new DragEvent('drop', { dataTransfer, bubbles: true, cancelable: true }));
    });
    await page.waitForFunction((n) => Number(document.body.dataset.actions) > n, before);
    expect(await page.textContent('#pco-title')).toBe('Pco: dropped.pco');
    const bytes = new Uint8Array(readFileSync(path.join(corpusRoot, 'pco', 'classic_i32_n1000.pco')));
    checkShown(await shownValues('view-pco'), numdecode.pco.decodeChunks(bytes), 'dropped file');
  });

  test('a missing URL is a readable error', async () => {
    const r = await openUrl('../corpus/pco/no-such-file.pco', 'pco');
    expect(r.state).toBe('error');
    expect(r.error).toContain('HTTP 404');
  });
});

// ---------------------------------------------------------------- ALP


describe('ALP', () => {
  const alpDir = path.join(corpusRoot, 'alp');
  const cases = haveCorpus ? readJson(alpDir, 'manifest.json') : [];

  function checkAlp(label, bytes, dtype, shown, header) {
    const values = numdecode.alp.decode(bytes, dtype);
    checkShown(shown, [{ dtype, values }], label);
    const info = numdecode.alp.inspect(bytes, dtype);
    const exceptions = info.vectors.reduce((s, v) => s + (v.exceptions ?? 0), 0);
    expect([label, header.exceptions]).toEqual([label, exceptions.toLocaleString('en-US')]);
    expect([label, header['num-vectors']]).toEqual([label, info.numVectors.toLocaleString('en-US')]);
  }

  const header = () => page.evaluate(() => Object.fromEntries([...document.querySelectorAll('#alp-header [data-field]')].map((td) => [td.dataset.field, td.textContent])));

  test('a million values decode in the worker with progress, and the page keeps responding', async () => {
    // Watch the progress line and how long the main thread ever goes without running a timer.
    await page.evaluate(() => {
      window.demoWatch = { stages: new Set(), maxGap: 0 };
      const observer = new MutationObserver(() => window.demoWatch.stages.add(document.getElementById('stage').textContent.split(' ')[0]));
      observer.observe(document.getElementById('stage'), { childList: true, characterData: true, subtree: true });
      let last = performance.now();
      window.demoWatch.timer = setInterval(() => {
        const now = performance.now();
        window.demoWatch.maxGap = Math.max(window.demoWatch.maxGap, now - last);
        last = now;
      }, 5);
      window.demoWatch.observer = observer;
    });
    const r = await openUrl('samples/sensor_f32_n1000000.alp', 'alp-f32');
    expect(r).toEqual({ state: 'ready', error: null });
    const watch = await page.evaluate(() => {
      clearInterval(window.demoWatch.timer);
      window.demoWatch.observer.disconnect();
      return { stages: [...window.demoWatch.stages], maxGap: window.demoWatch.maxGap };
    });
    for (const stage of ['downloading', 'decoding', 'finding', 'computing', 'drawing']) expect(watch.stages).toContain(stage);
    // Decoding happens off the main thread; what remains there (drawing) stays well under a second.
    expect(watch.maxGap).toBeLessThan(1000);
  }, 60000);

  test('the page\'s own samples (made by our encoder), exceptions marked', async () => {
    const index = JSON.parse(readFileSync(path.join(samplesDir, 'index.json'), 'utf8'));
    const own = index.samples.filter((s) => s.format.startsWith('alp'));
    expect(own.length).toBeGreaterThan(0);
    for (const s of own) {
      const dtype = s.format.slice(4);
      const r = await openUrl(`samples/${s.file}`, s.format);
      expect([s.file, r]).toEqual([s.file, { state: 'ready', error: null }]);
      checkAlp(s.file, new Uint8Array(readFileSync(path.join(samplesDir, s.file))), dtype, await shownValues('view-alp'), await header());
      // The marks agree with the page's per-vector exception counts.
      expect(await page.textContent('#view-alp')).toContain("matching the page's per-vector counts");
    }
    // The bits-per-value chart picks a vector and shows its values in the plot.
    await page.focus('#alp-bits');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    expect(await page.textContent('#alp-bits-readout')).toMatch(/^vector 1: values 1024 to 2047, exponent \d+, factor \d+/);
    expect(await page.textContent('#view-alp .readout')).toBe('showing values 1024 to 2047 of 1000000');
    await page.click('#view-alp button:text("Reset")');
    await screenshot('alp');
  }, 120000);

  test('every corpus page: count, min, max, first values and exceptions match the decoder', async () => {
    for (const c of cases) {
      const dtype = c.dtype === 'float64' ? 'f64' : 'f32';
      const r = await openUrl(`../corpus/alp/${c.file}`, `alp-${dtype}`);
      expect([c.file, r]).toEqual([c.file, { state: 'ready', error: null }]);
      checkAlp(c.file, new Uint8Array(readFileSync(path.join(alpDir, c.file))), dtype, await shownValues('view-alp'), await header());
      expect([c.file, (await header()).exceptions]).toEqual([c.file, c.exceptions.toLocaleString('en-US')]);
    }
  }, 600000);

  test('a file that is not Pco asks for the ALP value type', async () => {
    const before = Number(await page.getAttribute('body', 'data-actions'));
    await openUrl('../corpus/alp/f64_price2_n1024.alp', 'auto');
    expect(await page.isVisible('#ask-alp')).toBe(true);
    await page.click('#ask-alp button[data-dtype=f64]');
    await page.waitForFunction((n) => Number(document.body.dataset.actions) > n + 1, before);
    expect(await page.getAttribute('body', 'data-state')).toBe('ready');
    expect(await page.textContent('#alp-title')).toContain('f64');
  });

  test('damaged pages show the decoder\'s message', async () => {
    const corrupt = readJson(alpDir, 'corrupt/manifest.json').filter((c) => c.must_reject).slice(0, 6);
    for (const c of corrupt) {
      const dtype = c.dtype === 'float64' ? 'f64' : 'f32';
      const r = await openUrl(`../corpus/alp/corrupt/${c.file}`, `alp-${dtype}`);
      expect([c.file, r.state]).toEqual([c.file, 'error']);
      expect(r.error.length).toBeGreaterThan(20);
    }
    await screenshot('alp-error');
  }, 120000);
});

// ---------------------------------------------------------------- BPCells


describe('BPCells', () => {
  const bpDir = path.join(corpusRoot, 'bpcells');
  const cases = haveCorpus ? readJson(bpDir, 'manifest.json') : [];

  const summary = () => page.evaluate(() => Object.fromEntries([...document.querySelectorAll('#bp-summary [data-field]')].map((td) => [td.dataset.field, td.textContent])));
  const shownStats = async () => ({
    requests: Number((await page.textContent('#bp-requests')).replace(/,/g, '')),
    bytes: await page.textContent('#bp-bytes'),
  });

  test('every corpus matrix by URL: shape, order, nnz, dtype, first vector; requests as counted by the browser', async () => {
    for (const c of cases) {
      const url = `${base}/corpus/bpcells/${c.dir}/`;
      const matrix = await numdecode.bpcells.open(path.join(bpDir, c.dir));
      const seen = [];
      const listen = (req) => {
        if (req.url().startsWith(url)) seen.push(req.url());
      };
      page.on('request', listen);
      const r = await openUrl(url, 'bpcells');
      // Let the counter's timer catch up, then compare it with what the browser sent.
      await page.waitForTimeout(300);
      page.off('request', listen);
      expect([c.name, r]).toEqual([c.name, { state: 'ready', error: null }]);
      const s = await summary();
      expect([c.name, s.shape]).toEqual([c.name, `${matrix.shape[0].toLocaleString('en-US')} rows × ${matrix.shape[1].toLocaleString('en-US')} columns`]);
      expect([c.name, s.nnz]).toEqual([c.name, matrix.nnz.toLocaleString('en-US')]);
      expect([c.name, s.dtype]).toEqual([c.name, matrix.dtype]);
      expect([c.name, s.version]).toEqual([c.name, matrix.version]);
      expect([c.name, s.order.includes(matrix.storageOrder === 'col' ? 'column' : 'row')]).toEqual([c.name, true]);
      if (matrix.major > 0) {
        const { index } = await matrix.read(0, 1);
        expect([c.name, await page.getAttribute('#bp-vector-summary', 'data-nnz')]).toEqual([c.name, String(index.length)]);
      }
      const { requests } = await shownStats();
      expect([c.name, requests]).toEqual([c.name, seen.length]);
    }
  }, 600000);

  test('a large matrix: opening and picking a column fetch a small part of it', async () => {
    const c = cases.find((x) => x.name === 'packed_uint_large_20000x3000');
    const url = `${base}/corpus/bpcells/${c.dir}/`;
    const seen = [];
    const listen = (req) => req.url().startsWith(url) && seen.push(req.url());
    page.on('request', listen);
    await openUrl(url, 'bpcells');
    await page.waitForTimeout(300);
    const afterOpen = seen.length;
    expect((await shownStats()).requests).toBe(afterOpen);
    const k = 1234;
    await page.fill('#bp-pick-index', String(k));
    await page.fill('#bp-pick-name', '');
    const before = Number(await page.getAttribute('body', 'data-actions'));
    await page.click('#bp-pick button[type=submit]');
    await page.waitForFunction((n) => Number(document.body.dataset.actions) > n, before);
    await page.waitForTimeout(300);
    page.off('request', listen);
    const matrix = await numdecode.bpcells.open(path.join(bpDir, c.dir));
    const { index, val } = await matrix.read(k, k + 1);
    expect(await page.getAttribute('#bp-vector-summary', 'data-nnz')).toBe(String(index.length));
    const rows = await page.$$eval('#bp-vector-table tbody tr', (trs) => trs.slice(0, 5).map((tr) => [...tr.cells].map((td) => td.textContent)));
    rows.forEach(([i, , v], p) => expect([Number(i), Number(v)]).toEqual([index[p], Number(val[p])]));
    const columnRequests = seen.length - afterOpen;
    expect((await shownStats()).requests).toBe(seen.length);
    // One column of a 37 MB matrix: a handful of range requests.
    expect(columnRequests).toBeGreaterThan(0);
    expect(columnRequests).toBeLessThanOrEqual(6);
    // Pointing at a heatmap cell reads that matrix entry: the first non-zero of column 0, and
    // the zero just above it.
    await page.locator('#bp-heatmap').scrollIntoViewIfNeeded();
    const box = await page.locator('#bp-heatmap').boundingBox();
    const { left, top, cellWidth, cellHeight } = await page.evaluate(() => ({ ...document.getElementById('bp-heatmap').dataset }));
    const first = await matrix.read(0, 1);
    const rowNames = await matrix.rowNames();
    const [colName] = await matrix.colNames();
    const r = first.index[0];
    expect(r).toBeGreaterThan(0);
    for (const [row, value] of [[r, Number(first.val[0])], [r - 1, 0]]) {
      await page.mouse.move(box.x + Number(left) + Number(cellWidth) / 2, box.y + Number(top) + (row + 0.5) * Number(cellHeight));
      expect(await page.textContent('#bp-heat-readout')).toBe(`row ${row} (${rowNames[row]}), column 0 (${colName}): ${value}`);
    }
    await screenshot('bpcells');
  }, 120000);

  test('a directory URL without its trailing slash is found by its version file', async () => {
    const c = cases.find((x) => x.name === 'unpacked_double_col_colnames');
    const r = await openUrl(`../corpus/bpcells/${c.dir}`, 'auto');
    expect(r).toEqual({ state: 'ready', error: null });
    expect((await summary()).nnz).toBe(c.nnz.toLocaleString('en-US'));
  });

  test('a folder chosen with the folder picker (read through File objects)', async () => {
    const c = cases.find((x) => x.name === 'packed_float_col_names');
    const before = Number(await page.getAttribute('body', 'data-actions'));
    await page.setInputFiles('#dir-input', path.join(bpDir, c.dir));
    await page.waitForFunction((n) => Number(document.body.dataset.actions) > n, before);
    expect(await page.getAttribute('body', 'data-state')).toBe('ready');
    const s = await summary();
    expect(s.nnz).toBe(c.nnz.toLocaleString('en-US'));
    expect(s.dtype).toBe((await numdecode.bpcells.open(path.join(bpDir, c.dir))).dtype);
    // read from the disk, not fetched: reads and bytes, no round trips
    await page.waitForTimeout(300);
    expect(await page.textContent('#bp-fetched-label')).toBe('Read from the disk so far: ');
    expect(await page.textContent('#bp-requests-word')).toBe(' reads');
    expect(await page.isVisible('#bp-round-trips-part')).toBe(false);
  });

  test('a dropped folder: a matrix directory read from its files', async () => {
    const c = cases.find((x) => x.name === 'packed_float_col_names');
    const before = Number(await page.getAttribute('body', 'data-actions'));
    const drop = await dropFolder(page, path.join(bpDir, c.dir), `${base}/corpus/bpcells/${c.dir}`);
    await drop();
    await page.waitForFunction((n) => Number(document.body.dataset.actions) > n, before);
    expect(await page.getAttribute('body', 'data-state')).toBe('ready');
    expect((await summary()).nnz).toBe(c.nnz.toLocaleString('en-US'));
    expect(await page.textContent('#bp-fetched-label')).toBe('Read from the disk so far: ');
  });

  test('a picked folder without one of a matrix\'s files names that file in plain words', async () => {
    const c = cases.find((x) => x.name === 'packed_float_col_names');
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'nd-demo-')), 'matrix'); // a copy outside the project
    mkdirSync(dir);
    for (const f of readdirSync(path.join(bpDir, c.dir))) if (f !== 'shape') copyFileSync(path.join(bpDir, c.dir, f), path.join(dir, f));
    try {
      const before = Number(await page.getAttribute('body', 'data-actions'));
      await page.setInputFiles('#dir-input', dir);
      await page.waitForFunction((n) => Number(document.body.dataset.actions) > n, before);
      expect(await page.getAttribute('body', 'data-state')).toBe('error');
      const shown = await page.textContent('#error');
      expect(shown).toContain('the folder has no file "shape", which a BPCells matrix directory holds');
      expect(shown).not.toContain('size()');
    } finally {
      rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });

  test('the package API in the browser: bpcells.open(url) with the default fetch', async () => {
    // The page passes its own fetch; a user calling open(url) relies on the default one.
    const c = cases.find((x) => x.name === 'packed_uint_col_names');
    const url = `${base}/corpus/bpcells/${c.dir}/`;
    const shown = await page.evaluate(async (u) => {
      const nd = await import('/js/index.js');
      await nd.init();
      try {
        const m = await nd.bpcells.open(u);
        return { nnz: m.nnz, shape: m.shape };
      } catch (err) {
        return { error: err.message };
      }
    }, url);
    expect(shown).toEqual({ nnz: c.nnz, shape: c.shape });
  });

  test('a damaged matrix directory shows the reader\'s message', async () => {
    const corrupt = readJson(bpDir, 'corrupt/manifest.json').filter((c) => c.must_reject).slice(0, 4);
    for (const c of corrupt) {
      const r = await openUrl(`${base}/corpus/bpcells/${c.dir}/`, 'bpcells');
      expect([c.name, r.state]).toEqual([c.name, 'error']);
      expect(r.error).toContain('bpcells');
    }
  }, 120000);
});

// ---------------------------------------------------------------- small screens

test('a phone-sized screen: no sideways scrolling, controls reachable', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openUrl('../corpus/pco/floatmult_f64_2dec.pco', 'auto');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await screenshot('phone', { fullPage: false });
  await page.setViewportSize({ width: 1280, height: 900 });
});

// A user who opens something while the page is still starting (its samples list arriving late, as
// on a slow link or a loaded machine) keeps what they opened. The page used to open, once the list
// came, the link in its address bar, which by then named the user's file: the same HDF5 file opened
// twice at once, and the first open to finish closed the other's file under its reads ("cannot open
// as HDF5 ... No such file", seen in a loaded test run).
test('an open started before the page has loaded its samples is neither opened again nor replaced', async () => {
  const late = await context.newPage();
  late.on('pageerror', (err) => pageErrors.push(err.message));
  let heads = 0;
  await late.route('**/web/samples/index.json', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 800));
    await route.continue();
  });
  // The file answers slowly: the user's open is still going when the samples list arrives.
  await late.route('**/packed_uint_col_counts_names/matrix.h5', async (route) => {
    if (route.request().headers().range === 'bytes=0-16383') heads++; // each open's first request
    await new Promise((resolve) => setTimeout(resolve, 400));
    await route.continue();
  });
  try {
    await late.goto(`${base}/web/`);
    await late.waitForSelector('#url-form');
    await late.fill('#url', `${base}/corpus/bpcells-hdf5/packed_uint_col_counts_names/matrix.h5`);
    await late.click('#url-form button[type=submit]');
    await late.waitForSelector('body[data-started=yes]', { timeout: 60000 });
    const title = 'BPCells: packed_uint_col_counts_names/matrix.h5 (HDF5 group /mat)';
    await late.waitForFunction(() => document.body.dataset.state !== 'busy', null, { timeout: 60000, polling: 50 });
    const shown = await late.evaluate(() => ({
      state: document.body.dataset.state,
      bpcells: !document.getElementById('view-bpcells').hidden,
      title: document.getElementById('bp-title').textContent,
      error: document.getElementById('error').hidden ? null : document.getElementById('error').textContent,
    }));
    expect(shown).toEqual({ state: 'ready', bpcells: true, title, error: null });
    expect(heads).toBe(1); // opened once
  } finally {
    await late.close();
  }
}, 120000);

// Two HDF5 files opened one after the other, the first answering slowly: when the first arrives
// after the second is on show, it is dropped (and its file closed), not shown over the second, whose
// file it used to close under the second's reads.
test('a slow open finishing after a later one neither replaces it nor closes its file', async () => {
  const tab = await context.newPage();
  tab.on('pageerror', (err) => pageErrors.push(err.message));
  const slow = await slowRoute(tab, '**/packed_uint_col_counts_names/matrix.h5', 700);
  try {
    await tab.goto(`${base}/web/`);
    await tab.waitForSelector('body[data-started=yes]', { timeout: 60000 });
    const open = async (dir) => {
      await tab.fill('#url', `${base}/corpus/bpcells-hdf5/${dir}/matrix.h5`);
      await tab.selectOption('#format', 'auto');
      await tab.click('#url-form button[type=submit]');
    };
    await open('packed_uint_col_counts_names'); // slow
    await tab.waitForFunction(() => document.body.dataset.state === 'busy', null, { timeout: 10000, polling: 20 });
    await open('unicode_names_packed_float_row'); // fast
    const title = 'BPCells: unicode_names_packed_float_row/matrix.h5 (HDF5 group /mat)';
    await tab.waitForFunction((t) => document.body.dataset.state === 'ready' && document.getElementById('bp-title').textContent === t, title, { timeout: 60000, polling: 50 });
    // Let the slow open finish: its requests (0.7 s each) answered and none asked for 2 s.
    await slow.untilQuiet();
    expect(slow.answered).toBeGreaterThanOrEqual(3); // the slow file's open went on to its end meanwhile
    // The second file is still on show and still readable: a vector read through its open file.
    const before = Number(await tab.getAttribute('body', 'data-actions')) || 0;
    await tab.fill('#bp-pick-index', '1');
    await tab.click('#bp-pick button[type=submit]');
    await tab.waitForFunction((n) => Number(document.body.dataset.actions) > n, before, { timeout: 30000, polling: 50 });
    const shown = await tab.evaluate(() => ({
      state: document.body.dataset.state,
      title: document.getElementById('bp-title').textContent,
      error: document.getElementById('error').hidden ? null : document.getElementById('error').textContent,
    }));
    expect(shown).toEqual({ state: 'ready', title, error: null });
  } finally {
    await tab.close();
  }
}, 120000);

test('no request ever left 127.0.0.1', () => {
  expect(foreignRequests).toEqual([]);
  expect(pageErrors).toEqual([]);
});
