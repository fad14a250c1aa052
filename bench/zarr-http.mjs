#!/usr/bin/env node
// Zarr arrays read whole over HTTP: numdecode's own store (js/zarr/http-store.js, through js/io:
// retries, timeouts, Range answers checked) against zarrita's FetchStore, the store a user would
// otherwise pass, both read by numdecode's read(), and zarrita.get over FetchStore.
//
//   node bench/zarr-http.mjs [--tiles 20] [--runs 3] [--reps 5] [--arrays t2m,tp,counts]
//                            [--latency-arrays tp] [--latency 50] [--keep DIR]
//
// The big store of ../shared/tools/make-big-zarr.mjs (built in a temporary directory, removed
// afterwards) is served by the tests' loopback server (tests/js/helpers/io-test-server.js) in a
// process of its own, as a far server would be. Two links:
//   loopback      answers at once: what each store costs per request (t2m: 1 920 chunk files)
//   latency       every answer held back --latency ms: a far server, where the requests in flight
//                 at once set the time (numdecode's store: 64 in Node, 6 in a browser, the row
//                 "concurrency 6"; read() asks for up to 64 chunks at once over a network)
// Each contender's reads are interleaved with the others' (load falls on all alike); a run's figure
// is the median of --reps reads (2 over the far link) after one warm-up read, and the table gives
// the best and the worst run. Every read is compared byte for byte with a read of the same array
// from the local folder.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as zarr from 'zarrita';
import { init } from '../js/index.js';
import { openArray, read, registerPcodec } from '../js/zarr.js';
import { LocalStore } from '../js/zarr/local-store.js';
import { serveDirectory, startServer } from '../tests/js/helpers/io-test-server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const corpus = process.env.NUMDECODE_CORPUS_DIR ? path.resolve(process.env.NUMDECODE_CORPUS_DIR) : path.resolve(here, '../../shared/corpus');
const maker = path.resolve(corpus, '../tools/make-big-zarr.mjs');

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}

const tiles = option('tiles', '20');
const runs = Number(option('runs', '3'));
const reps = Number(option('reps', '5'));
const arrays = option('arrays', 't2m,tp,counts').split(',');
const latencyArrays = option('latency-arrays', 'tp').split(',').filter(Boolean);
const latency = Number(option('latency', '50'));

const bytesOf = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// The contenders: a name and a read of array `name` from the server at `base`, giving its data.
const contenders = {
  'read(), numdecode httpStore': async (base, name) => (await read(await openArray(base, `/${name}`))).data,
  'read(), numdecode httpStore, concurrency 6 (a browser\'s)': async (base, name) => (await read(await openArray(base, `/${name}`, { concurrency: 6 }))).data,
  'read(), zarrita FetchStore': async (base, name) => (await read(await zarr.open.v3(zarr.root(new zarr.FetchStore(base)).resolve(name), { kind: 'array' }))).data,
  'zarrita.get, zarrita FetchStore': async (base, name) => (await zarr.get(await zarr.open.v3(zarr.root(new zarr.FetchStore(base)).resolve(name), { kind: 'array' }))).data,
};

// The server, in a process of its own: it prints its address, then serves until its parent lets
// go of its stdin (a bench killed by any signal leaves no server behind).
async function serve(dir, delay) {
  const server = await startServer();
  server.handler = (req, res) => serveDirectory(req, res, dir);
  server.delay = delay;
  process.stdin.on('end', () => process.exit(0)).resume();
  console.log(server.base);
}

async function startServing(dir, delay) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', dir, '--delay', String(delay)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let timer;
  const base = await new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error("the bench's server did not start in 30 s")), 30000);
    child.stdout.once('data', (d) => resolve(String(d).trim()));
    child.once('exit', (code) => reject(new Error(`the bench's server exited (${code})`)));
  }).finally(() => clearTimeout(timer));
  return { base, close: () => child.kill() };
}

async function measure(storeDir, name, expected, delay) {
  const server = await startServing(storeDir, delay);
  try {
    return await measureAt(server.base, name, expected, delay);
  } finally {
    server.close();
  }
}

async function measureAt(base, name, expected, delay) {
  const n = delay ? Math.min(reps, 2) : reps; // a far link's reads take seconds and vary little (the median of 2 is the slower)
  const times = new Map(Object.keys(contenders).map((k) => [k, []]));
  for (let r = 0; r < runs; r++) {
    const inRun = new Map(Object.keys(contenders).map((k) => [k, []]));
    for (let i = 0; i <= n; i++) {
      for (const [how, readIt] of Object.entries(contenders)) {
        const t0 = performance.now();
        const data = await readIt(base, name);
        const ms = performance.now() - t0;
        if (!bytesOf(data).equals(expected)) throw new Error(`${how}: ${name} over HTTP differs from the local read`);
        if (i > 0) inRun.get(how).push(ms); // the first read of each is a warm-up
      }
    }
    for (const [how, ms] of inRun) times.get(how).push(median(ms));
  }
  return Object.keys(contenders).map((how) => {
    const t = times.get(how);
    return {
      array: name,
      link: delay ? `${delay} ms a request` : 'loopback',
      how,
      'median ms, best run': Math.min(...t).toFixed(0),
      'median ms, worst run': Math.max(...t).toFixed(0),
      values: 'exact',
    };
  });
}

async function main() {
  const dir = option('keep') ?? mkdtempSync(path.join(os.tmpdir(), 'numdecode-big-zarr-'));
  const made = spawnSync(process.execPath, [maker, dir, tiles], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`make-big-zarr failed: ${made.stderr}`);
  const storeDir = path.join(dir, 'big.zarr');
  await init({ formats: ['pco'] });
  registerPcodec(zarr.registry);
  console.log(
    `Zarr arrays over HTTP (a loopback server in a process of its own), store of ${tiles} tiles; Node ${process.versions.node}, ` +
      `${os.availableParallelism?.() ?? os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}; ` +
      `median of ${reps} reads per run (${Math.min(reps, 2)} at ${latency} ms), best and worst of ${runs} runs`,
  );
  try {
    const rows = [];
    for (const name of arrays) {
      const local = bytesOf((await read(await zarr.open.v3(zarr.root(new LocalStore(storeDir)).resolve(name), { kind: 'array' }))).data);
      rows.push(...(await measure(storeDir, name, local, 0)));
      if (latencyArrays.includes(name) && latency > 0) rows.push(...(await measure(storeDir, name, local, latency)));
    }
    console.table(rows);
  } finally {
    if (option('keep') === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--serve')) await serve(option('serve'), Number(option('delay', '0')));
else await main();
