// BPCells matrices in HDF5 files in headless Chromium: h5wasm loaded through an import map, every
// corpus case read exactly over HTTP and from a File picked with an <input type=file> (a Blob on
// the main thread: read lazily by pass-and-refetch); a corrupt file gives a BpcellsError; one
// column of the large file in <= 8 requests after open.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { corpusRoot } from '../helpers/corpus.js';
import { chromiumAvailable, openBrowser } from '../helpers/chromium.js';

const setDir = path.join(corpusRoot, 'bpcells-hdf5');
const readJson = (p) => JSON.parse(readFileSync(p, 'utf8'));
const cases = readJson(path.join(setDir, 'manifest.json'));
const LARGE = 'large_packed_uint_col_20000x2000';
const ARRAY = { uint: Uint32Array, float: Float32Array, double: Float64Array };

function expected(c) {
  const e = readJson(path.join(setDir, c.dir, 'expected.json'));
  const s = e.stored;
  const bin = (f) => readFileSync(path.join(setDir, c.dir, f));
  const bytes = (t) => Buffer.from(t.buffer, t.byteOffset, t.byteLength);
  return {
    e,
    idxptr: s.idxptr_file ? Array.from(new BigUint64Array(new Uint8Array(bin(s.idxptr_file)).buffer), Number) : s.idxptr,
    index: s.index_file ? bin(s.index_file) : bytes(Uint32Array.from(s.index)),
    val: s.val_file ? bin(s.val_file) : bytes(ARRAY[e.dtype].from(s.val)),
  };
}

// A file with two matrix groups (for the demo's group chooser), written with h5wasm.
async function buildTwoGroups(dir) {
  const h5 = await import('h5wasm');
  await h5.ready;
  const c = cases.find((x) => x.name === 'unicode_names_packed_float_row');
  const exp = expected(c);
  const f = new h5.File('/two-groups.h5', 'w');
  for (const name of ['first', 'second']) {
    const g = f.create_group(name);
    g.create_attribute('version', 'unpacked-float-matrix-v2');
    g.create_dataset({ name: 'shape', data: Uint32Array.from(c.shape) });
    g.create_dataset({ name: 'idxptr', data: BigUint64Array.from(exp.idxptr, (v) => BigInt(v)) });
    g.create_dataset({ name: 'index', data: new Uint32Array(exp.index.buffer.slice(exp.index.byteOffset, exp.index.byteOffset + exp.index.length)) });
    g.create_dataset({ name: 'val', data: new Float32Array(exp.val.buffer.slice(exp.val.byteOffset, exp.val.byteOffset + exp.val.length)) });
    g.create_dataset({ name: 'storage_order', data: [c.storage_order] });
    g.create_dataset({ name: 'row_names', data: exp.e.row_names });
    g.create_dataset({ name: 'col_names', data: exp.e.col_names });
  }
  f.close();
  writeFileSync(path.join(dir, 'two-groups.h5'), h5.FS.readFile('/two-groups.h5'));
  h5.FS.unlink('/two-groups.h5');
}

let browser;
let builtDir;
beforeAll(async () => {
  if (!chromiumAvailable) return;
  builtDir = mkdtempSync(path.join(os.tmpdir(), 'numdecode-h5-'));
  await buildTwoGroups(builtDir);
  browser = await openBrowser([['/built/', builtDir]]);
  await browser.page.goto(`${browser.base}/tests/js/hdf5/bpcells-hdf5-browser.html`);
  await browser.page.waitForFunction(() => window.pageReady === true, null, { timeout: 30000 });
}, 60000);

afterAll(async () => {
  await browser?.close();
  if (builtDir) rmSync(builtDir, { recursive: true, force: true });
});

const run = (args) => browser.page.evaluate((a) => window.readH5(a), args);

function check(got, c) {
  const exp = expected(c);
  expect(got.error).toBeUndefined();
  expect([got.version, got.shape, got.storageOrder, got.nnz, got.group]).toEqual([c.format_version, c.shape, c.storage_order, c.nnz, `/${c.group}`]);
  expect(got.all.idxptr).toEqual(exp.idxptr);
  expect(Buffer.from(got.all.index, 'base64').equals(exp.index)).toBe(true);
  expect(Buffer.from(got.all.val, 'base64').equals(exp.val)).toBe(true);
  expect(got.rowNames).toEqual(exp.e.row_names);
  expect(got.colNames).toEqual(exp.e.col_names);
}

(chromiumAvailable ? describe : describe.skip)('BPCells HDF5 in Chromium', () => {
  test.each(cases.filter((c) => c.name !== LARGE).map((c) => [c.name, c]))('%s over HTTP and from a File', async (_n, c) => {
    check(await run({ url: `${browser.base}/corpus/bpcells-hdf5/${c.dir}/matrix.h5`, group: c.group }), c);
    await browser.page.setInputFiles('#file', path.join(setDir, c.dir, 'matrix.h5'));
    check(await run({ picked: true, group: c.group }), c);
    expect(browser.pageErrors).toEqual([]);
  });

  test('one column of the large file over HTTP: <= 8 requests after open, exact', async () => {
    const c = cases.find((x) => x.name === LARGE);
    const exp = expected(c);
    const got = await run({ url: `${browser.base}/corpus/bpcells-hdf5/${c.dir}/matrix.h5`, group: 'mat', column: 1500 });
    expect(got.error).toBeUndefined();
    const [p0, p1] = [exp.idxptr[1500], exp.idxptr[1501]];
    expect(Buffer.from(got.column.index, 'base64').equals(exp.index.subarray(4 * p0, 4 * p1))).toBe(true);
    expect(Buffer.from(got.column.val, 'base64').equals(exp.val.subarray(4 * p0, 4 * p1))).toBe(true);
    expect(got.afterColumn.requests - got.opened.requests).toBeLessThanOrEqual(8);
    expect(got.afterColumn.bytes).toBeLessThan(0.05 * readFileSync(path.join(setDir, c.dir, 'matrix.h5')).length);
  });

  test('the worker pool reads a slice of a File and of a URL in a Web Worker', async () => {
    const c = cases.find((x) => x.name === 'packed_double_col_gzip6');
    const exp = expected(c);
    await browser.page.setInputFiles('#file', path.join(setDir, c.dir, 'matrix.h5'));
    for (const args of [{ picked: true }, { url: `${browser.base}/corpus/bpcells-hdf5/${c.dir}/matrix.h5` }]) {
      const got = await browser.page.evaluate((a) => window.poolSlice(a), { ...args, group: 'mat', start: 20, end: 40 });
      expect(got.error).toBeUndefined();
      expect(got.shape).toEqual(c.shape);
      const [p0, p1] = [exp.idxptr[20], exp.idxptr[40]];
      expect(got.idxptr).toEqual(exp.idxptr.slice(20, 41).map((v) => v - p0));
      expect(Buffer.from(got.index, 'base64').equals(exp.index.subarray(4 * p0, 4 * p1))).toBe(true);
      expect(Buffer.from(got.val, 'base64').equals(exp.val.subarray(8 * p0, 8 * p1))).toBe(true);
    }
  });

  test('a truncated file picked as a File is a BpcellsError', async () => {
    await browser.page.setInputFiles('#file', path.join(setDir, 'corrupt', 'truncated_half', 'matrix.h5'));
    const got = await run({ picked: true, group: 'mat' });
    expect(got.name).toBe('BpcellsError');
    expect(got.code).toBe('ERR_BAD_DATA');
    expect(got.error).toMatch(/truncated file/);
    expect(got.file).toBe('File matrix.h5');
  });

  // The demo page (last: it navigates away from the test page).
  describe('demo', () => {
    // Waits until the page has finished an action and shows `title` (or an error).
    // Waits for the action after `before` to end: an error, or the matrix with this title (and,
    // when two files share a title, this text in the summary) shown.
    const waitAction = async (before, title, summaryText = '') => {
      await browser.page.waitForFunction(
        ([n, t, text]) =>
          Number(document.body.dataset.actions) > n &&
          (!document.getElementById('error').hidden ||
            (document.body.dataset.state === 'ready' &&
              document.getElementById('bp-title').textContent === t &&
              document.getElementById('bp-summary').textContent.includes(text))),
        [before, title, summaryText],
        { timeout: 60000, polling: 50 },
      );
      return browser.page.evaluate(() => ({
        state: document.body.dataset.state,
        title: document.getElementById('bp-title').textContent,
        summary: document.getElementById('bp-summary').textContent,
        requests: Number(document.getElementById('bp-requests').textContent.replace(/\D/g, '')),
        error: document.getElementById('error').hidden ? null : document.getElementById('error').textContent,
      }));
    };
    const actions = async () => Number(await browser.page.getAttribute('body', 'data-actions')) || 0;

    test('an .h5 URL and a picked .h5 File open in the matrix view', async () => {
      await browser.page.goto(`${browser.base}/web/index.html`);
      await browser.page.waitForSelector('#url-form');
      let before = await actions();
      await browser.page.fill('#url', `${browser.base}/corpus/bpcells-hdf5/packed_uint_col_counts_names/matrix.h5`);
      await browser.page.click('#url-form button[type=submit]');
      // A URL's title names its folder too: HDF5 files are often all called matrix.h5.
      let shown = await waitAction(before, 'BPCells: packed_uint_col_counts_names/matrix.h5 (HDF5 group /mat)');
      expect(shown.error).toBeNull();
      expect(shown.state).toBe('ready');
      expect(shown.title).toBe('BPCells: packed_uint_col_counts_names/matrix.h5 (HDF5 group /mat)');
      expect(shown.summary).toContain('packed-uint-matrix-v2');
      expect(shown.summary).toContain('600 rows × 300 columns');
      expect(shown.requests).toBeGreaterThan(0);
      before = await actions();
      await browser.page.setInputFiles('#file-input', path.join(setDir, 'unpacked_float_row_nonames', 'matrix.h5'));
      shown = await waitAction(before, 'BPCells: matrix.h5 (HDF5 group /mat)', 'unpacked-float-matrix-v2');
      expect(shown.error).toBeNull();
      expect(shown.summary).toContain('unpacked-float-matrix-v2');
      expect(shown.summary).toContain('300 rows × 200 columns');
    });

    test('a file with two matrix groups shows a group chooser', async () => {
      const before = await actions();
      await browser.page.fill('#url', `${browser.base}/built/two-groups.h5`);
      await browser.page.click('#url-form button[type=submit]');
      await browser.page.waitForSelector('#bp-group', { timeout: 30000 });
      expect(await browser.page.$$eval('#bp-group option', (os) => os.map((o) => o.value))).toEqual(['/first', '/second']);
      await browser.page.selectOption('#bp-group', '/second');
      await browser.page.click('#bp-groups button[type=submit]');
      const shown = await waitAction(before, 'BPCells: built/two-groups.h5 (HDF5 group /second)');
      expect(shown.error).toBeNull();
      expect(shown.title).toBe('BPCells: built/two-groups.h5 (HDF5 group /second)');
      expect(shown.summary).toContain('5 rows × 4 columns');
    });
  });
});
