#!/usr/bin/env node
// What a page that uses only one format downloads, measured in headless Chromium: the page
// tests/nobuild/size.html (no build step, packages through an import map) decodes one corpus file
// per format, and every JS and wasm response is counted, raw and gzip -9 (brotli too), grouped as
// numdecode JS, numdecode wasm (+ its emscripten glue) and other packages. Corpus data is not
// counted. Prints a Markdown table; --json prints the per-file figures. The page's cases use the
// entry a page would (numdecode/pco, numdecode/zarr, numdecode/alp, numdecode/bpcells for BPCells
// directories and HDF5 files, numdecode/parquet), and each loads only its format's wasm module.
//
//   node bench/size-report.mjs [--json]
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import path from 'node:path';
import { projectRoot } from '../tests/js/helpers/corpus.js';
import { openBrowser } from '../tests/js/helpers/chromium.js';

export const FORMATS = ['pco', 'zarr', 'alp', 'bpcells', 'hdf5', 'parquet'];

function groupOf(pathname) {
  if (/^\/node_modules\/numdecode\/dist\//.test(pathname)) return 'wasm';
  if (pathname.startsWith('/node_modules/numdecode/')) return 'js';
  if (pathname.startsWith('/node_modules/')) return 'deps';
  return null; // the page itself, corpus data
}

const gz = (b) => gzipSync(b, { level: 9 }).length;
const br = (b) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;

/**
 * {format: {values, files: [{path, group, raw, gzip, brotli}], totals: {group: {raw, gzip, brotli}}}}.
 * brotli: false skips the (slow, quality 11) brotli figures.
 */
export async function measure(formats = FORMATS, { brotli = true } = {}) {
  const browser = await openBrowser([
    ['/site/', path.join(projectRoot, 'tests/nobuild')],
    ['/node_modules/numdecode/', projectRoot],
  ]);
  const report = {};
  try {
    for (const format of formats) {
      const bodies = [];
      const onResponse = (r) => bodies.push(r.body().then((b) => [new URL(r.url()).pathname, b], () => null));
      browser.page.on('response', onResponse);
      await browser.page.goto(`${browser.base}/site/size.html?use=${format}`);
      const result = await browser.page.evaluate(() => window.result);
      browser.page.off('response', onResponse);
      if (result.error) throw new Error(`size.html?use=${format}: ${result.error}`);
      const files = [];
      for (const entry of await Promise.all(bodies)) {
        if (entry === null) continue;
        const [p, body] = entry;
        const group = groupOf(p);
        if (group) files.push({ path: p, group, raw: body.length, gzip: gz(body), brotli: brotli ? br(body) : NaN });
      }
      const totals = {};
      for (const g of ['js', 'wasm', 'deps', 'all']) totals[g] = { raw: 0, gzip: 0, brotli: 0 };
      for (const f of files) {
        for (const g of [f.group, 'all']) for (const k of ['raw', 'gzip', 'brotli']) totals[g][k] += f[k];
      }
      report[format] = { values: result.values, files, totals };
    }
  } finally {
    await browser.close();
  }
  return report;
}

const kB = (n) => (n / 1000).toFixed(1);

/** The numdecode .wasm files a page fetched (file names, sorted). */
export function wasmModules(files) {
  return files.filter((f) => f.group === 'wasm' && f.path.endsWith('.wasm')).map((f) => path.basename(f.path)).sort();
}

export function markdown(report) {
  const lines = [
    '| page uses | wasm module | numdecode JS | wasm + glue | other packages | total (raw) | total gzip -9 | total brotli |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const cell = (t) => `${kB(t.raw)} / ${kB(t.gzip)}`;
  for (const [format, { totals, files }] of Object.entries(report)) {
    const modules = wasmModules(files).join(', ');
    lines.push(
      `| ${format} | ${modules} | ${cell(totals.js)} | ${cell(totals.wasm)} | ${cell(totals.deps)} | ${kB(totals.all.raw)} | ${kB(totals.all.gzip)} | ${kB(totals.all.brotli)} |`,
    );
  }
  lines.push('', 'kB = 1000 bytes; cells are raw / gzip -9. Corpus data not counted.');
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const report = await measure();
  console.log(process.argv.includes('--json') ? JSON.stringify(report, null, 2) : markdown(report));
}
