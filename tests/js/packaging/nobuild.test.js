// numdecode with no build step: tests/nobuild/index.html loads the packages' own ES modules through
// an import map, (1) from /node_modules/ on the page's origin and (2) from a CDN-style prefix on a
// second local server (another origin, CORS allowed), workers included. The page runs the app the
// bundler tests build (Pco, ALP, BPCells, Zarr chunks in the worker pool) plus numdecode/parquet
// (hyparquet and hyparquet-compressors by their bare names) and the light entries numdecode/alp and
// numdecode/bpcells; results must match the corpus.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createStaticServer } from '../../../scripts/serve.mjs';
import { bytesOf, corpusRoot, pcoDir, projectRoot, readBytes, sha256 } from '../helpers/corpus.js';
import { chromiumAvailable, openBrowser } from '../helpers/chromium.js';

const CASE = {
  pcoFile: 'multichunk_i32_4chunks.pco',
  alpFile: 'f64_lvs12_n10000.alp',
  alpDtype: 'f64',
  bpcellsDir: 'packed_uint_col_names/matrix',
  zarrStore: 'dtypes_v3.zarr',
  zarrArray: 'float64',
};
const bpcellsExpected = path.join(corpusRoot, 'bpcells/packed_uint_col_names/expected');

// The tempo column of the Spotify file, as the writer's CSV has it (17 significant digits: exact doubles).
function expectedParquetColumn(csvName, column) {
  const [header, ...rows] = readFileSync(path.join(corpusRoot, 'parquet-alp', csvName), 'utf8').trim().split('\n');
  const at = header.split(',').indexOf(column);
  return Float64Array.from(rows, (row) => Number(row.split(',')[at]));
}

const maybe = chromiumAvailable ? describe : describe.skip;

maybe('no build step: import map in headless Chromium', () => {
  let browser;
  let cdn;
  let cdnBase;
  let requested = [];

  beforeAll(async () => {
    browser = await openBrowser([
      ['/site/', path.join(projectRoot, 'tests/nobuild')],
      ['/app/', path.join(projectRoot, 'tests/bundlers/app')],
      ['/node_modules/numdecode/', projectRoot],
    ]);
    // The CDN: the same node_modules layout under /npm/ on another port, answering with CORS.
    const files = createStaticServer({
      mounts: [['/npm/numdecode/', projectRoot], ['/npm/', path.join(projectRoot, 'node_modules')]],
    });
    const serveFile = files.listeners('request')[0];
    cdn = http.createServer((req, res) => {
      res.setHeader('Access-Control-Allow-Origin', '*');
      serveFile(req, res);
    });
    await new Promise((resolve) => cdn.listen(0, '127.0.0.1', resolve));
    cdnBase = `http://127.0.0.1:${cdn.address().port}`;
    browser.page.context().on('request', (r) => requested.push(r.url()));
  });

  afterAll(async () => {
    await browser?.close();
    if (cdn) await new Promise((resolve) => cdn.close(resolve));
  });

  async function runPage(pkg) {
    requested = [];
    await browser.page.goto(`${browser.base}/site/index.html?pkg=${encodeURIComponent(pkg)}`);
    await browser.page.waitForFunction(() => window.appReady === true && typeof window.readParquet === 'function', null, {
      timeout: 30000,
    });
    const app = await browser.page.evaluate((c) => window.runNumdecode(c), CASE);
    const parquet = await browser.page.evaluate(() => window.readParquet('alp_spotify1.parquet', 'tempo'));
    const light = await browser.page.evaluate(() => window.readLight());
    return { app, parquet, light };
  }

  function expectDecoded({ app, parquet, light }) {
    expect(app.buildInfo.simd).toBe(true);
    expect(app.pco).toEqual({ type: 'Int32Array', sha256: sha256(readBytes(pcoDir, 'multichunk_i32_4chunks.bin')) });
    expect(app.alp).toEqual({ type: 'Float64Array', sha256: sha256(readBytes(path.join(corpusRoot, 'alp'), 'f64_lvs12_n10000.bin')) });
    expect(app.bpcells).toEqual({
      shape: [50, 20],
      index: sha256(readBytes(bpcellsExpected, 'index.u32')),
      val: sha256(readBytes(bpcellsExpected, 'val.u32')),
    });
    expect(app.poolPco).toBe(app.pco.sha256);
    expect(app.zarr).toEqual({
      type: 'Float64Array',
      sha256: sha256(readBytes(corpusRoot, 'zarr-pcodec/expected/dtypes_v3.zarr/float64.bin')),
    });
    expect(app.poolStats).toMatchObject({ completed: 4, failed: 0 }); // 1 Pco file + 3 Zarr chunks
    const tempo = expectedParquetColumn('alp_spotify1_expect.csv', 'tempo');
    expect(parquet).toEqual({ numRows: tempo.length, type: 'Float64Array', sha256: sha256(bytesOf(tempo)) });
    // numdecode/alp and numdecode/bpcells read the same files to the same values.
    expect(light).toEqual({ alp: app.alp, bpcellsVal: sha256(readBytes(bpcellsExpected, 'val.u32')) });
  }

  test('from the package folder on the same origin', async () => {
    expectDecoded(await runPage('/node_modules/'));
    const paths = requested.map((u) => new URL(u)).filter((u) => u.protocol === 'http:').map((u) => u.pathname);
    // Code and wasm from the package folders only (the server also serves the project at /).
    expect(paths.filter((p) => !/^\/(site|app|node_modules|corpus)\//.test(p))).toEqual([]);
    expect(paths).toContain('/node_modules/numdecode/js/worker/worker.js');
    expect(paths).toContain('/node_modules/numdecode/dist/numdecode-pco-simd.wasm');
    expect(browser.pageErrors).toEqual([]);
  });

  test('from a CDN-style prefix on another origin, workers included', async () => {
    expectDecoded(await runPage(`${cdnBase}/npm/`));
    const http = requested.map((u) => new URL(u)).filter((u) => u.protocol === 'http:');
    const local = http.filter((u) => u.origin === browser.base).map((u) => u.pathname);
    expect(local.filter((p) => !/^\/(site|app|corpus)\//.test(p))).toEqual([]);
    const fromCdn = http.filter((u) => u.origin === cdnBase).map((u) => u.pathname);
    expect(fromCdn).toContain('/npm/numdecode/js/worker/worker.js');
    expect(fromCdn).toContain('/npm/numdecode/dist/numdecode-pco-simd.wasm');
    expect(fromCdn).toContain('/npm/hyparquet/src/index.js');
    expect(browser.pageErrors).toEqual([]);
  });
});
