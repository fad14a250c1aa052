// What a page that uses one format downloads (bench/size-report.mjs: tests/nobuild/size.html?use=…
// in headless Chromium, every JS and wasm response counted, gzip -9). Issue 18: a page that only
// decodes Pco downloads at most 150 kB gzip of wasm + JS in all; the other formats' pages stay
// within today's figures + ~5 %, so that no download grows unnoticed. Each page fetches only its
// own format's wasm module (one module per format, loaded when first used).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { statSync } from 'node:fs';
import path from 'node:path';
import { FORMATS, measure, wasmModules } from '../../../bench/size-report.mjs';
import { projectRoot } from '../helpers/corpus.js';
import { chromiumAvailable } from '../helpers/chromium.js';

const PCO_PAGE_GZIP_BUDGET = 150_000; // wasm + glue + JS, everything the page downloads (118.0 kB, 2026-11-24)

// Per page: the values it decoded (a real decode of a corpus file happened), the wasm module it
// may fetch, and the gzip budget of numdecode's share (its JS, wasm and glue; zarrita, hyparquet and
// h5wasm are counted apart: a Zarr or Parquet app has them anyway). Budgets: the figure measured
// (in the comments) + ~5 %. Measured at 6322eeb, then again at a7cf624 (2026-11-25), where every
// light page's JS grew by 3-6 kB gz: the wasm layer is one concept per file (each gzipped on its
// own, as a no-build page fetches it), every entry exports releaseMemory / memoryUsage (issue 31),
// views warn once for deprecated names (js/deprecate.js); BPCells pages also carry the by-axis
// reads and the array-file error fields (+1.9 kB gz of wasm), the Zarr page the codec's encoder
// configuration. The Pco page stays far inside its 150 kB (the encoder loads on first use).
const PAGES = {
  pco: { values: 3500, wasm: 'numdecode-pco-simd.wasm', numdecodeGzip: PCO_PAGE_GZIP_BUDGET }, // 125.4 kB
  zarr: { values: 5000, wasm: 'numdecode-pco-simd.wasm', numdecodeGzip: 137_000 }, // 130.3 kB (120.8 at 6322eeb)
  alp: { values: 10000, wasm: 'numdecode-alp-simd.wasm', numdecodeGzip: 64_500 }, // 61.7 kB on 2026-12-07: +1.9 kB gz of wasm, the Parquet page helpers (levels, nulls: src/parquet/) in the module Parquet reads load (57.9 kB before; 52.0 at 6322eeb)
  bpcells: { values: 213, wasm: 'numdecode-bpcells-simd.wasm', numdecodeGzip: 129_000 }, // 123.9 kB on 2026-12-06 with issue 27's held seek tables and deferred storage_order check (122.5 before; 116.9 at a7cf624, 98.2 at 6322eeb)
  hdf5: { values: 900, wasm: 'numdecode-bpcells-simd.wasm', numdecodeGzip: 157_000 }, // 150.2 kB on 2026-12-06, the same change (142.1 earlier; 135.1 at a7cf624, 141.6 before js/wasm/heap.js's unsigned malloc: addresses past 2 GiB)
  parquet: { values: 15000, wasm: 'numdecode-alp-simd.wasm', numdecodeGzip: 119_000 }, // 114.4 kB on 2026-12-07 with the levels and nulls in wasm (js/parquet/page-nulls.js and src/parquet/: +5 kB gz, 1.9 of it wasm); 108.1 kB on 2026-12-06, 109.9 before it fetched js/io/open.js and tail.js instead of js/io/index.js (and with it directory.js, a BPCells directory's); 104.6 kB earlier (100.3 at a7cf624; 103.4 before readView, whose own code loads only when asked for)
};

// numdecode's JS files a page fetched, relative to the package root, sorted.
const jsFiles = (format) => report[format].files.filter((f) => f.group === 'js').map((f) => f.path.replace('/node_modules/numdecode/', '')).sort();
// The wasm layer every format's page loads (js/wasm/), sorted.
const WASM_LAYER = ['js/wasm/call.js', 'js/wasm/heap.js', 'js/wasm/inputs.js', 'js/wasm/load.js', 'js/wasm/views.js'];
// What the light entries add to it: memory release (js/wasm/memory.js); deprecate.js comes with views.js.
const ENTRY_LAYER = [...WASM_LAYER, 'js/wasm/memory.js'].sort();
// What a BPCells page must not fetch: other formats' JS, and the main entry that imports all of it.
const NOT_BPCELLS_JS = /^js\/(index|pco|alp|zarr|parquet)\.js$|^js\/parquet\//;

const describeMaybe = chromiumAvailable ? describe : describe.skip;
let report;

beforeAll(async () => {
  if (chromiumAvailable) report = await measure(FORMATS, { brotli: false });
}, 120000);

describeMaybe('download budgets per format', () => {
  afterAll(() => {
    // The figures behind a failure, one line per page.
    const line = ([f, { totals: t }]) => `${f}: numdecode ${(t.js.gzip + t.wasm.gzip) / 1000} kB gz, all ${t.all.gzip / 1000} kB gz`;
    if (report) console.log(Object.entries(report).map(line).join('\n'));
  });

  test.each(Object.keys(PAGES))('the %s page fetches only its own wasm module, within its budget', (format) => {
    const page = PAGES[format];
    const { values, files, totals } = report[format];
    expect(values).toBe(page.values);
    // One module, fetched once and whole: the SIMD build as it is in dist/.
    expect(wasmModules(files)).toEqual([page.wasm]);
    const wasm = files.find((f) => f.path.endsWith('.wasm'));
    expect(wasm.raw).toBe(statSync(path.join(projectRoot, 'dist', page.wasm)).size);
    expect(totals.js.gzip + totals.wasm.gzip).toBeLessThanOrEqual(page.numdecodeGzip);
  });

  test('a page that only decodes Pco downloads at most 150 kB gzip in all, and no other format\'s code', () => {
    const { files, totals } = report.pco;
    expect(totals.deps.raw).toBe(0); // no other package
    expect(totals.all.gzip).toBeLessThanOrEqual(PCO_PAGE_GZIP_BUDGET);
    const js = files.filter((f) => f.group === 'js').map((f) => f.path.replace('/node_modules/numdecode/', '')).sort();
    expect(js).toEqual(['js/bytes.js', 'js/deprecate.js', 'js/dtypes.js', 'js/errors.js', 'js/pco-entry.js', 'js/pco.js', ...ENTRY_LAYER]);
  });

  test('the Zarr page loads numdecode/zarr, the Pco decoder and nothing of the other formats', () => {
    // The read (js/zarr/read.js and its modules) loads on first use of read(): the codec page does not fetch it.
    expect(jsFiles('zarr')).toEqual(['js/bytes.js', 'js/deprecate.js', 'js/dtypes.js', 'js/errors.js', 'js/pco.js', ...WASM_LAYER, 'js/zarr.js', 'js/zarr/codec-names.js', 'js/zarr/local-store.js', 'js/zarr/pcodec-config.js']);
  });

  test('the ALP page loads numdecode/alp, the ALP decoder and nothing of the other formats', () => {
    expect(jsFiles('alp')).toEqual(['js/alp-entry.js', 'js/alp.js', 'js/bytes.js', 'js/deprecate.js', 'js/dtypes.js', 'js/errors.js', ...ENTRY_LAYER]);
  });

  test('the BPCells pages (a directory, an HDF5 file) load numdecode/bpcells and no other format\'s JS; h5wasm only for HDF5', () => {
    for (const format of ['bpcells', 'hdf5']) {
      const js = jsFiles(format);
      expect(js).toContain('js/bpcells-entry.js');
      expect(js).toContain('js/bpcells/matrix.js');
      expect(js.filter((f) => NOT_BPCELLS_JS.test(f))).toEqual([]);
    }
    // The directory page checks for the HDF5 signature (js/hdf5/signature.js, probe.js) and loads nothing else of js/hdf5.
    expect(jsFiles('bpcells').filter((f) => f.startsWith('js/hdf5/') && !['js/hdf5/signature.js', 'js/hdf5/probe.js'].includes(f))).toEqual([]);
    expect(report.bpcells.totals.deps.raw).toBe(0);
    expect(jsFiles('hdf5')).toEqual(expect.arrayContaining(['js/hdf5/runtime.js', 'js/hdf5/handle.js', 'js/hdf5/lazy-file.js', 'js/hdf5/reader.js']));
  });

  test('the Parquet page loads numdecode/parquet and the ALP decoder, not the main entry nor another format\'s JS', () => {
    const js = jsFiles('parquet');
    expect(js).toEqual(expect.arrayContaining(['js/parquet.js', 'js/alp.js']));
    expect(js.filter((f) => /^js\/(index|pco|zarr|alp-entry)\.js$|^js\/bpcells/.test(f))).toEqual([]);
  });
});
