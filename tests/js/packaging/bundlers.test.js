// numdecode inside apps built by Vite, webpack 5, esbuild and Rollup: each bundler builds the app in
// tests/bundlers/app with the user config beside it (tests/bundlers/<name>.config.js) into a temp
// dir; headless Chromium loads each bundle once with the SIMD build and once with the scalar build
// forced, decodes Pco, ALP, BPCells and a Zarr array (chunks decoded in the worker pool), and every
// result must match the corpus' expected bytes. The Vite dev server runs the same app unbundled.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import path from 'node:path';
import { corpusRoot, pcoDir, readBytes, sha256 } from '../helpers/corpus.js';
import { createStaticServer } from '../../../scripts/serve.mjs';
import { BUNDLERS, buildApp, makeAppDir, makeInstalledAppDir, removeAppDir, userConfig } from './bundlers-build.js';
import { chromiumAvailable, openBrowser } from '../helpers/chromium.js';

const CASE = {
  pcoFile: 'multichunk_i32_4chunks.pco',
  alpFile: 'f64_lvs12_n10000.alp',
  alpDtype: 'f64',
  bpcellsDir: 'packed_uint_col_names/matrix',
  zarrStore: 'dtypes_v3.zarr',
  zarrArray: 'float64',
};
const alpDir = path.join(corpusRoot, 'alp');
const bpcellsExpected = path.join(corpusRoot, 'bpcells/packed_uint_col_names/expected');
const EXPECTED = {
  pco: { type: 'Int32Array', sha256: sha256(readBytes(pcoDir, 'multichunk_i32_4chunks.bin')) },
  alp: { type: 'Float64Array', sha256: sha256(readBytes(alpDir, 'f64_lvs12_n10000.bin')) },
  bpcells: {
    shape: [50, 20],
    index: sha256(readBytes(bpcellsExpected, 'index.u32')),
    val: sha256(readBytes(bpcellsExpected, 'val.u32')),
  },
  zarr: { type: 'Float64Array', sha256: sha256(readBytes(corpusRoot, 'zarr-pcodec/expected/dtypes_v3.zarr/float64.bin')) },
};
// dtypes_v3.zarr/float64 is 5000 values in chunks of 2048: 3 chunks, plus the one Pco file.
const POOL_JOBS = 4;

// What the app reports after one run: the build asked for, in the page and in its worker pool,
// and every format's values as the corpus holds them.
function expectDecoded(out, simd) {
  expect(out.buildInfo.simd).toBe(simd);
  expect(out.poolBuildInfo.simd).toBe(simd);
  expect(out.pco).toEqual(EXPECTED.pco);
  expect(out.pcoEncoded).toBe(EXPECTED.pco.sha256); // pco.encode's module found by the bundle too
  expect(out.alp).toEqual(EXPECTED.alp);
  expect(out.bpcells).toEqual(EXPECTED.bpcells);
  expect(out.poolPco).toBe(EXPECTED.pco.sha256);
  expect(out.zarr).toEqual(EXPECTED.zarr);
  expect(out.poolStats).toMatchObject({ completed: POOL_JOBS, failed: 0 });
}

const maybe = chromiumAvailable ? describe : describe.skip;

maybe('bundled apps in headless Chromium', () => {
  let appDir;
  let browser;
  const failedRequests = [];
  let requested = [];

  beforeAll(async () => {
    appDir = makeAppDir();
    const mounts = [];
    for (const name of BUNDLERS) mounts.push([`/app-${name}/`, await buildApp(name, appDir)]);
    browser = await openBrowser(mounts);
    // Anything the bundle asks for and does not get (a .wasm or worker at the wrong URL). Pages and
    // workers alike: the browser context sees the workers' requests too.
    // (zarrita's probes for Zarr v2 metadata in the corpus store 404 by design: not counted.)
    browser.page.context().on('response', (r) => {
      if (r.status() >= 400 && !new URL(r.url()).pathname.startsWith('/corpus/')) failedRequests.push(`${r.status()} ${r.url()}`);
    });
    browser.page.context().on('request', (r) => requested.push(new URL(r.url()).pathname));
  }, 240000);

  afterAll(async () => {
    await browser?.close();
    if (appDir) removeAppDir(appDir);
  });

  async function run(name, query) {
    await browser.page.goto(`${browser.base}/app-${name}/index.html${query}`);
    await browser.page.waitForFunction(() => window.appReady === true, null, { timeout: 30000 });
    return browser.page.evaluate((c) => window.runNumdecode(c), CASE);
  }

  test.each(BUNDLERS)('%s: SIMD and forced-scalar builds decode Pco, ALP, BPCells and Zarr, in page and worker pool', async (name) => {
    requested = [];
    for (const [query, simd] of [['', true], ['?simd=0', false]]) {
      const out = await run(name, query);
      expectDecoded(out, simd);
    }
    expect(failedRequests).toEqual([]);
    // Code and wasm come from the bundle's own folder only (the server also serves the project at /).
    expect(requested.filter((p) => !p.startsWith(`/app-${name}/`) && !p.startsWith('/corpus/'))).toEqual([]);
    expect(requested.some((p) => p.endsWith('.wasm'))).toBe(true);
    expect(browser.pageErrors).toEqual([]);
  });
});

// `vite` (the dev server) serves modules one by one and pre-bundles installed dependencies with
// esbuild: the same app, numdecode installed as a copy, the user's vite.config.js unchanged.
maybe('the Vite dev server in headless Chromium', () => {
  let appDir;
  let server;
  let browser;

  beforeAll(async () => {
    appDir = makeInstalledAppDir();
    const { createServer } = await import('vite');
    const corpus = createStaticServer({ mounts: [['/corpus/', corpusRoot]] }).listeners('request')[0];
    const serveCorpus = {
      name: 'serve-corpus',
      configureServer(s) {
        s.middlewares.use((req, res, next) => (req.url.startsWith('/corpus/') ? corpus(req, res) : next()));
      },
    };
    server = await createServer({
      ...(await userConfig('vite')),
      plugins: [serveCorpus],
      root: appDir,
      configFile: false,
      logLevel: 'error',
      cacheDir: path.join(appDir, '.vite'),
      server: { host: '127.0.0.1', port: 0, strictPort: false, hmr: false, fs: { allow: [appDir, corpusRoot] } },
    });
    await server.listen();
    browser = await openBrowser();
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (appDir) removeAppDir(appDir);
  });

  test('SIMD and forced-scalar builds decode Pco, ALP, BPCells and Zarr, in page and worker pool', async () => {
    const base = server.resolvedUrls.local[0];
    for (const [query, simd] of [['', true], ['?simd=0', false]]) {
      await browser.page.goto(`${base}${query}`);
      await browser.page.waitForFunction(() => window.appReady === true, null, { timeout: 60000 });
      const out = await browser.page.evaluate((c) => window.runNumdecode(c), CASE);
      expectDecoded(out, simd);
    }
    expect(browser.pageErrors).toEqual([]);
  }, 120000);
});
