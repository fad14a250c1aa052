#!/usr/bin/env node
// Whole-array reads of the big Zarr store in Chromium (issue 32): numdecode's read() on the main
// thread and with pools of Web Workers against zarrita.get with numdecode's codec and against
// fizarrita's getWorker (@fideus-labs/fizarrita: zarrita's get with the codec pipeline run in a
// pool of Web Workers) with the same codec and the same number of workers.
//
//   node bench/zarr-browser.mjs [--tiles 20] [--runs 3] [--arrays t2m,tp,counts] [--workers 1,2] [--stores http,memory] [--keep DIR]
//
// The store is built in a temporary directory by ../shared/tools/make-big-zarr.mjs (as for
// bench/zarr-read.mjs, whose figures are Node's) and removed afterwards. fizarrita's codec worker,
// with numdecode's codec registered in its zarrita registry (bench/browser/fizarrita-worker.js), is
// bundled with esbuild into the same temporary directory. A loopback-only (127.0.0.1) server
// serves js/, dist/, node_modules/, bench/browser/, the bundle and the store (from memory) with
// Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp, so that
// the page is cross-origin isolated (SharedArrayBuffer exists) and no response is cached. The
// system Chromium (/usr/bin/chromium, or NUMDECODE_CHROMIUM) runs headless through playwright-core;
// without it the bench says so and exits 0.
//
// --stores http: every contender reads the store through zarrita's FetchStore over the same loopback
// HTTP, so each pays the same fetches (on a 2-core machine they are most of the time: "fetch only").
// --stores memory: the array's files are fetched into the page once, and a store there hands every
// contender a fresh copy of each file it asks for: what is left is each contender's own work.
// In the page, per array: every contender reads once (warm-up) and its output is compared byte for
// byte with zarrita.get's (a wrong output fails the bench); then --runs interleaved rounds time
// each contender after a garbage collection:
//   zarrita.get             zarrita's get with numdecode's pcodec codec, main thread, 64 chunks at a time
//                           (its default queue fetches every chunk at once, which Chromium refuses on t2m)
//   read                    numdecode/zarr read(), main thread
//   read, pool N            read(array, { pool }) with numdecode's worker pool of N (SharedArrayBuffer output)
//   fizarrita N, shared     getWorker(array, null, { pool, workerUrl, useSharedArrayBuffer: true }), N workers
//   fizarrita N, transfer   getWorker without SharedArrayBuffer (decoded chunks transferred back and copied)
//   fetch only              every chunk (shard) file fetched through the same FetchStore, 64 at a time, not
//                           decoded: the part of every row above that is the loopback HTTP alone
// A contender that throws is listed with its error instead of times.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const corpus = process.env.NUMDECODE_CORPUS_DIR ? path.resolve(process.env.NUMDECODE_CORPUS_DIR) : path.resolve(root, '../shared/corpus');
const maker = path.resolve(corpus, '../tools/make-big-zarr.mjs');
const CHROMIUM = process.env.NUMDECODE_CHROMIUM ?? '/usr/bin/chromium';
const ARRAY_TIMEOUT_MS = 15 * 60 * 1000; // one array, every contender, every run
const PAGE_TIMEOUT_MS = 60 * 1000;

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// fizarrita's codec worker with numdecode's codec, bundled (zarrita and fizarrita inside,
// numdecode's modules left to load from /js/). fizarrita's package says "sideEffects": false,
// which would drop its codec-worker module (all side effects): ignoreAnnotations keeps it.
async function bundleWorker(outDir) {
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [path.join(here, 'browser/fizarrita-worker.js')],
    bundle: true,
    format: 'esm',
    outfile: path.join(outDir, 'fizarrita-worker.js'),
    external: ['/js/*'],
    ignoreAnnotations: true,
    logLevel: 'error',
  });
}

// The project's static server (Range support, loopback) with the two headers that make the page
// cross-origin isolated, and no caching: every read fetches every chunk again. The store's files
// are answered from memory (read once at start, with Range support): the server shares the
// machine's cores with Chromium, and a stat and a file stream per chunk would cost it more.
async function startServer(mounts, storePrefix, storeDir) {
  const { createStaticServer, parseRange } = await import('../scripts/serve.mjs');
  const inner = createStaticServer({ mounts });
  const [handle] = inner.listeners('request');
  const files = new Map(); // URL path -> bytes
  (function walk(dir, prefix) {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name), `${prefix}${e.name}/`);
      else files.set(`${prefix}${e.name}`, readFileSync(path.join(dir, e.name)));
    }
  })(storeDir, storePrefix);
  const server = http.createServer((req, res) => {
    const writeHead = res.writeHead.bind(res);
    res.writeHead = (status, headers = {}) =>
      writeHead(status, {
        ...headers,
        'Cache-Control': 'no-store',
        'Cross-Origin-Opener-Policy': 'same-origin',
        'Cross-Origin-Embedder-Policy': 'require-corp',
        'Cross-Origin-Resource-Policy': 'same-origin',
      });
    const urlPath = new URL(req.url, 'http://localhost').pathname;
    if (!urlPath.startsWith(storePrefix) || req.method !== 'GET') return handle(req, res);
    const body = files.get(urlPath);
    if (body === undefined) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      return res.end('not found\n');
    }
    const range = parseRange(req.headers.range, body.length);
    if (range === 'unsatisfiable') {
      res.writeHead(416, { 'Content-Range': `bytes */${body.length}` });
      return res.end();
    }
    const headers = { 'Content-Type': urlPath.endsWith('.json') ? 'application/json' : 'application/octet-stream', 'Accept-Ranges': 'bytes' };
    if (range === null) {
      res.writeHead(200, { ...headers, 'Content-Length': String(body.length) });
      return res.end(body);
    }
    res.writeHead(206, { ...headers, 'Content-Range': `bytes ${range.start}-${range.end}/${body.length}`, 'Content-Length': String(range.end - range.start + 1) });
    res.end(body.subarray(range.start, range.end + 1));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return server;
}

const STORE_TEXT = {
  http: 'Store over loopback HTTP: zarrita FetchStore, the same for every contender ("fetch only": the HTTP alone)',
  memory: "Store in the page's memory (its files fetched once before; every get hands out a fresh copy): each contender's own work",
};

function table(result) {
  const { name, storeKind, values, samples, errors } = result;
  const best = (c) => (samples[c]?.length ? Math.min(...samples[c]) : NaN);
  const median = (c) => (samples[c]?.length ? [...samples[c]].sort((a, b) => a - b)[Math.floor(samples[c].length / 2)] : NaN);
  const zarrita = best('zarrita.get');
  // fizarrita with N workers: the faster of its two outputs (shared or transferred).
  const fizarrita = (n) => Math.min(best(`fizarrita ${n}, shared`), best(`fizarrita ${n}, transfer`));
  const mvals = (x) => x.toFixed(x < 10 ? 1 : 0);
  const ratio = (x) => (Number.isFinite(x) ? x.toFixed(2) : '');
  return Object.keys(samples).map((c) => {
    const pool = /^read, pool (\d+)$/.exec(c)?.[1];
    if (errors[c]) return { array: name, store: storeKind, contender: c, 'best ms': 'failed', 'median ms': '', 'M values/s': '', '× zarrita.get': '', '× fizarrita, same workers': '', error: errors[c] };
    return {
      array: name,
      store: storeKind,
      contender: c,
      'best ms': best(c).toFixed(0),
      'median ms': median(c).toFixed(0),
      'M values/s': mvals(values / best(c) / 1e3),
      '× zarrita.get': c.startsWith('read') ? ratio(zarrita / best(c)) : '',
      '× fizarrita, same workers': pool ? ratio(fizarrita(pool) / best(c)) : '',
      error: '',
    };
  });
}

async function main() {
  if (!existsSync(CHROMIUM)) {
    console.log(`zarr-browser: skipped, no Chromium at ${CHROMIUM} (set NUMDECODE_CHROMIUM)`);
    return;
  }
  if (!existsSync(path.join(root, 'dist/numdecode-pco-simd.wasm'))) throw new Error('zarr-browser: dist/ has no numdecode-pco-simd.wasm: run npm run build first');
  const tiles = option('tiles', '20');
  const runs = Number(option('runs', '3'));
  const arrays = option('arrays', 't2m,tp,counts').split(',');
  const workers = option('workers', '1,2').split(',').map(Number);
  const stores = option('stores', 'http,memory').split(',');
  for (const s of stores) if (!STORE_TEXT[s]) throw new Error(`zarr-browser: --stores takes http and/or memory, got ${s}`);
  const dir = option('keep') ?? mkdtempSync(path.join(os.tmpdir(), 'numdecode-zarr-browser-'));
  const { chromium } = await import('playwright-core');
  let server;
  let context;
  let profile;
  let failed = false;
  try {
    const made = spawnSync(process.execPath, [maker, dir, tiles], { encoding: 'utf8', timeout: 10 * 60 * 1000 });
    if (made.status !== 0) throw new Error(`make-big-zarr failed: ${made.stderr || made.error}`);
    const bundleDir = path.join(dir, 'bundle');
    mkdirSync(bundleDir, { recursive: true });
    await bundleWorker(bundleDir);
    server = await startServer([
      ['/js/', path.join(root, 'js')],
      ['/dist/', path.join(root, 'dist')],
      ['/node_modules/', path.join(root, 'node_modules')],
      ['/bench/browser/', path.join(here, 'browser')],
      ['/bundle/', bundleDir],
    ], '/store/big.zarr/', path.join(dir, 'big.zarr'));
    const base = `http://127.0.0.1:${server.address().port}`;
    profile = mkdtempSync(path.join(os.tmpdir(), 'numdecode-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      timeout: PAGE_TIMEOUT_MS,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--js-flags=--expose-gc'],
    });
    // Killed (Ctrl-C, a timeout): close the browser first, so that no Chromium outlives the bench.
    for (const signal of ['SIGINT', 'SIGTERM']) {
      process.once(signal, () => {
        context?.close().finally(() => process.exit(130));
      });
    }
    const page = context.pages()[0] ?? (await context.newPage());
    const pageErrors = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('crash', () => process.stderr.write('  [page crashed]\n'));
    page.on('console', (msg) => {
      // 404s are the missing chunks of t2m (its fill value) and zarrita's metadata probing.
      if (/status of 404/.test(msg.text())) return;
      if (msg.type() === 'error' || msg.type() === 'warning') process.stderr.write(`  [page ${msg.type()}] ${msg.text()}\n`);
      else if (process.argv.includes('--verbose')) process.stderr.write(`  [page] ${msg.text()}\n`);
    });
    await page.goto(`${base}/bench/browser/zarr-bench.html`, { timeout: PAGE_TIMEOUT_MS });
    await page.waitForFunction(() => window.pageReady === true, null, { timeout: PAGE_TIMEOUT_MS });
    const facts = await page.evaluate(() => window.pageFacts());
    if (!facts.crossOriginIsolated || !facts.sharedArrayBuffer) throw new Error(`zarr-browser: the page is not cross-origin isolated (${JSON.stringify(facts)})`);
    const fizarritaVersion = JSON.parse(readFileSync(path.join(root, 'node_modules/@fideus-labs/fizarrita/package.json'), 'utf8')).version;
    const chromeVersion = /Chrome\/([\d.]+)/.exec(facts.userAgent)?.[1] ?? facts.userAgent;
    console.log(
      `Zarr whole-array reads in Chromium ${chromeVersion} (headless, cross-origin isolated, wasm ${facts.simd ? 'SIMD' : 'scalar'}), ` +
        `store of ${tiles} tiles; ` +
        `${os.availableParallelism?.() ?? os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}; best and median of ${runs} interleaved runs; ` +
        `× = that contender's time ÷ this row's (above 1: this row is faster); fizarrita ${fizarritaVersion}, the faster of its two outputs`,
    );
    for (const storeKind of stores) {
      console.log(STORE_TEXT[storeKind]);
      for (const name of arrays) {
        const result = await withTimeout(
          page.evaluate((o) => window.benchArray(o), { name, runs, workers, storeKind, workerUrl: `${base}/bundle/fizarrita-worker.js` }),
          ARRAY_TIMEOUT_MS,
          `zarr-browser ${name} (${storeKind})`,
        );
        console.table(table(result));
        for (const [c, e] of Object.entries(result.errors)) {
          console.log(`  ${name} (${storeKind}), ${c}: ${e}`);
          // A contender that decodes wrong, or one of numdecode's that fails, fails the bench.
          if (e.startsWith('WRONG OUTPUT') || !c.startsWith('fizarrita')) failed = true;
        }
      }
    }
    await page.evaluate(() => window.closePools());
    if (pageErrors.length) {
      console.log(`page errors: ${pageErrors.join(' | ')}`);
      failed = true;
    }
  } finally {
    await context?.close().catch(() => {});
    if (profile) rmSync(profile, { recursive: true, force: true });
    if (server) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    if (option('keep') === undefined) rmSync(dir, { recursive: true, force: true });
  }
  if (failed) {
    console.error('zarr-browser: FAILED (see the errors above)');
    process.exitCode = 1;
  }
}

await main();
