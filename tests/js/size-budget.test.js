// What a page that uses one format downloads (bench/size-report.mjs: tests/nobuild/size.html?use=…
// in headless Chromium, every JS and wasm response counted, gzip -9). Issue 18: a page that only
// decodes Pco downloads at most 150 kB gzip of wasm + JS in all; the other formats' pages stay
// within today's figures + ~5 %, so that no download grows unnoticed. Each page fetches only its
// own format's wasm module (one module per format, loaded when first used).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { statSync } from 'node:fs';
import path from 'node:path';
import { FORMATS, measure, wasmModules } from '../../bench/size-report.mjs';
import { projectRoot } from './corpus.js';
import { chromiumAvailable } from './zarr-chromium.js';

const PCO_PAGE_GZIP_BUDGET = 150_000; // wasm + glue + JS, everything the page downloads (121.6 kB, 2026-11-24)

// Per page: the values it decoded (a real decode of a corpus file happened), the wasm module it
// may fetch, and the gzip budget of numdecode's share (its JS, wasm and glue; zarrita, hyparquet and
// h5wasm are counted apart: a Zarr or Parquet app has them anyway). Budgets: the figure measured
// when the wasm was split per format (in the comments) + ~5 %.
const PAGES = {
  pco: { values: 3500, wasm: 'numdecode-pco-simd.wasm', numdecodeGzip: PCO_PAGE_GZIP_BUDGET },
  zarr: { values: 5000, wasm: 'numdecode-pco-simd.wasm', numdecodeGzip: 131_000 }, // 124.3 kB
  alp: { values: 10000, wasm: 'numdecode-alp-simd.wasm', numdecodeGzip: 107_000 }, // 102.0 kB
  bpcells: { values: 213, wasm: 'numdecode-bpcells-simd.wasm', numdecodeGzip: 120_000 }, // 114.4 kB
  hdf5: { values: 900, wasm: 'numdecode-bpcells-simd.wasm', numdecodeGzip: 136_000 }, // 129.8 kB
  parquet: { values: 15000, wasm: 'numdecode-alp-simd.wasm', numdecodeGzip: 101_000 }, // 95.7 kB
};

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
    expect(js).toEqual(['js/errors.js', 'js/pco-entry.js', 'js/pco.js', 'js/wasm.js']);
  });

  test('the Zarr page loads numdecode/zarr, the Pco decoder and nothing of the other formats', () => {
    const js = report.zarr.files.filter((f) => f.group === 'js').map((f) => f.path.replace('/node_modules/numdecode/', '')).sort();
    expect(js).toEqual(['js/errors.js', 'js/pco.js', 'js/wasm.js', 'js/zarr.js']);
  });
});
