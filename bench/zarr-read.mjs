#!/usr/bin/env node
// Whole-array reads of a big Zarr store (issue 32): numdecode's read on this thread and in worker
// pools against the decoder alone and zarrita.get with numdecode's codec, with peak memory.
//
//   node bench/zarr-read.mjs [--tiles 20] [--runs 3] [--warmups 3] [--arrays t2m,tp,counts] [--workers 1,2] [--keep DIR]
//
// The store is built in a temporary directory from the corpus' real pcodec chunks by
// ../shared/tools/make-big-zarr.mjs (t2m: 31 M f32 in chunks of 16 380 values; tp: 31 M f32 in
// chunks of 98 304; counts: 12.6 M u16 in shards of 16 inner chunks) and removed afterwards.
// Every measurement runs in a fresh process (so that its peak RSS is its own), warmed up by
// --warmups reads first (until 2026-12-06 one, which left part of a read's code unoptimized for the
// two timed reads: counts into a reused output 0.53 of the decoder alone after one, 0.70-0.76 after
// three or more); runs are interleaved over the contenders, so that load from other processes falls
// on all alike. Times are the best of --runs (the closest to an idle machine) and the median; peak
// memory is that of one read in a process of its own (RSS over the process's start: the output,
// what the read holds besides, and a pool's workers).
//   decoder alone   every stored chunk already in memory, pco.decodeInto one after another into one buffer
//   zarrita.get     zarrita 0.7.5's get with numdecode's pcodec codec, same store (js/zarr/local-store.js)
//   read            numdecode's read on this thread; "into" writes into an output allocated once,
//                   "view" is readView (the output in the Pco module's memory)
//   read, pool N    numdecode's read with a pool of N workers (a SharedArrayBuffer output)
//   read into, pool N   the same into one shared output allocated once
// A fresh output is memory the process has never touched: on a VM where a first touch is slow, that
// costs the same for zarrita and read; "first touch" prints what it costs alone.
// In Chromium (cross-origin isolated), against fizarrita's getWorker and zarrita.get: bench/zarr-browser.mjs.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hugePagesLine } from './host.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const corpus = process.env.NUMDECODE_CORPUS_DIR ? path.resolve(process.env.NUMDECODE_CORPUS_DIR) : path.resolve(root, '../shared/corpus');
const maker = path.resolve(corpus, '../tools/make-big-zarr.mjs');

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}

// ---- one measurement, in a child process --------------------------------------------------------
async function child() {
  const { init, pco } = await import('../js/index.js');
  const zarr = await import('zarrita');
  const { read, readView, registerPcodec } = await import('../js/zarr.js');
  const { LocalStore } = await import('../js/zarr/local-store.js');
  const { createWorkerPool } = await import('../js/worker/index.js');
  await init({ formats: ['pco'] });
  registerPcodec(zarr.registry);
  const [how, name, dir, reps, warmups] = [option('how'), option('array'), option('store'), Number(option('reps', '2')), Number(option('warmups', '3'))];
  const store = new LocalStore(dir);
  const arr = await zarr.open.v3(zarr.root(store).resolve(name), { kind: 'array' });
  const values = arr.shape.reduce((a, b) => a * b, 1);
  const width = arr.dtype === 'uint16' ? 2 : 4;
  let run;
  let pool;
  if (how === 'decoder alone') {
    const chunks = await storedChunks(store, name);
    const out = new (arr.dtype === 'uint16' ? Uint16Array : Float32Array)(arr.chunks.reduce((a, b) => a * b, 1));
    run = () => {
      for (const c of chunks) pco.decodeInto(c, out);
    };
  } else if (how === 'zarrita.get') {
    run = () => zarr.get(arr);
  } else if (how === 'first touch') {
    run = () => new Uint8Array(values * width).fill(1);
  } else if (how === 'read') {
    run = () => read(arr);
  } else if (how === 'read view') {
    let view = null; // each read's view released before the next: one output in wasm memory
    run = async () => {
      view?.release();
      view = await readView(arr);
      return view;
    };
  } else if (how === 'read into') {
    const into = (await read(arr)).data;
    run = () => read(arr, { into });
  } else {
    pool = await createWorkerPool({ size: Number(how.replace(/\D/g, '')), init: { formats: ['pco'] } });
    if (how.startsWith('read into')) {
      const into = (await read(arr, { pool })).data; // shared memory, touched once
      run = () => read(arr, { pool, into });
    } else {
      run = () => read(arr, { pool });
    }
  }
  const baseline = process.memoryUsage().rss;
  if (process.argv.includes('--memory')) {
    // One read and nothing else: its peak over the process's start (earlier outputs, still held
    // by a worker's heap until that worker collects garbage, would count otherwise).
    await run();
    await pool?.terminate();
    process.stdout.write(JSON.stringify({ peakOverBaseline: process.resourceUsage().maxRSS * 1024 - baseline }));
    return;
  }
  for (let w = 0; w < warmups; w++) await run(); // warm-up: wasm and JS optimized, files in the page cache
  const times = [];
  const cpus = [];
  let last;
  for (let r = 0; r < reps; r++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    last = await run();
    times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpus.push((c.user + c.system) / 1000);
  }
  await pool?.terminate();
  const checked = last?.data ? wrongTiles(last.data, JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8'))[name]) : null;
  process.stdout.write(JSON.stringify({ ms: Math.min(...times), cpu: cpus[times.indexOf(Math.min(...times))], values, outputBytes: values * width, checked }));
}

// The tiles of an output whose bytes are not the source array's (make-big-zarr's expected.json:
// tile k along the first axis holds the source's values, whose SHA-256 the corpus manifest gives),
// so every timed reader is also checked value for value against what the real writer wrote.
function wrongTiles(data, expected) {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const tileBytes = bytes.length / expected.tiles;
  const wrong = [];
  for (let k = 0; k < expected.tiles; k++) {
    const tile = new Uint8Array(tileBytes); // a copy: the output may be a SharedArrayBuffer
    tile.set(bytes.subarray(k * tileBytes, (k + 1) * tileBytes));
    if (createHash('sha256').update(tile).digest('hex') !== expected.source_sha256) wrong.push(k);
  }
  return wrong;
}

// Every stored chunk of an array (inner chunks of shards) as bytes, for the decoder alone.
async function storedChunks(store, name) {
  const { readdirSync, statSync } = await import('node:fs');
  const dir = path.join(store.root, name);
  const files = [];
  (function walk(d) {
    for (const e of readdirSync(d)) {
      const p = path.join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (e !== 'zarr.json') files.push(p);
    }
  })(dir);
  const meta = JSON.parse(readFileSync(path.join(dir, 'zarr.json'), 'utf8'));
  const sharding = meta.codecs.find((c) => c.name === 'sharding_indexed');
  const chunks = [];
  for (const f of files) {
    const bytes = new Uint8Array(readFileSync(f));
    if (!sharding) {
      chunks.push(bytes);
      continue;
    }
    const n = meta.chunk_grid.configuration.chunk_shape.reduce((a, s, d) => a * (s / sharding.configuration.chunk_shape[d]), 1);
    const indexAt = bytes.length - 16 * n - (sharding.configuration.index_codecs.some((c) => c.name === 'crc32c') ? 4 : 0);
    const view = new DataView(bytes.buffer, bytes.byteOffset + indexAt, 16 * n);
    for (let i = 0; i < n; i++) {
      const offset = view.getBigUint64(16 * i, true);
      if (offset === 2n ** 64n - 1n) continue;
      chunks.push(bytes.subarray(Number(offset), Number(offset) + Number(view.getBigUint64(16 * i + 8, true))));
    }
  }
  return chunks;
}

// ---- the table ------------------------------------------------------------------------------------
function parent() {
  const tiles = option('tiles', '20');
  const runs = Number(option('runs', '3'));
  const warmups = option('warmups', '3');
  const arrays = option('arrays', 't2m,tp,counts').split(',');
  const workers = option('workers', '1,2').split(',').map(Number);
  const dir = option('keep') ?? mkdtempSync(path.join(os.tmpdir(), 'numdecode-big-zarr-'));
  const made = spawnSync(process.execPath, [maker, dir, tiles], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`make-big-zarr failed: ${made.stderr}`);
  const storeDir = path.join(dir, 'big.zarr');
  const contenders = ['first touch', 'decoder alone', 'zarrita.get', 'read', 'read into', 'read view', ...workers.map((n) => `read, pool ${n}`), ...workers.map((n) => `read into, pool ${n}`)];
  console.log(`Zarr whole-array reads, store of ${tiles} tiles in ${dir}; Node ${process.versions.node}, ${os.availableParallelism?.() ?? os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}, ${hugePagesLine()}; best and median of ${runs} processes each, ${warmups} warm-up reads in each`);
  try {
    for (const name of arrays) {
      const samples = new Map(contenders.map((c) => [c, []]));
      for (let r = 0; r < runs; r++) {
        for (const how of contenders) {
          const args = ['--child', '--how', how, '--array', name, '--store', storeDir, '--warmups', warmups];
          const got = spawnSync(process.execPath, [fileURLToPath(import.meta.url), ...args], { encoding: 'utf8', cwd: root });
          if (got.status !== 0) throw new Error(`${how} on ${name} failed: ${got.stderr}`);
          const sample = JSON.parse(got.stdout);
          if (sample.checked?.length) throw new Error(`${how} on ${name}: tiles ${sample.checked.join(', ')} differ from the source array's values`);
          samples.get(how).push(sample);
        }
      }
      const peaks = new Map();
      for (const how of contenders) {
        const got = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', '--memory', '--how', how, '--array', name, '--store', storeDir], { encoding: 'utf8', cwd: root });
        if (got.status !== 0) throw new Error(`${how} on ${name} failed: ${got.stderr}`);
        peaks.set(how, JSON.parse(got.stdout).peakOverBaseline);
      }
      const best = (how) => Math.min(...samples.get(how).map((s) => s.ms));
      const median = (how) => samples.get(how).map((s) => s.ms).sort((a, b) => a - b)[Math.floor(runs / 2)];
      const alone = best('decoder alone');
      const zarrita = best('zarrita.get');
      const rows = contenders.map((how) => {
        const s = samples.get(how);
        const values = s[0].values;
        return {
          array: name,
          how,
          'best ms': best(how).toFixed(0),
          'median ms': median(how).toFixed(0),
          'M values/s': how === 'first touch' ? '' : (values / best(how) / 1e3).toFixed(0),
          '÷ decoder alone': how === 'first touch' ? '' : (alone / best(how)).toFixed(2),
          '× zarrita.get': how.startsWith('read') ? (zarrita / best(how)).toFixed(2) : '',
          'cpu ms': Math.min(...s.map((x) => x.cpu)).toFixed(0),
          'peak MB, one read': (peaks.get(how) / 1e6).toFixed(0),
          'output MB': (s[0].outputBytes / 1e6).toFixed(0),
          values: s[0].checked ? 'exact' : '', // every tile's SHA-256 that of the source array
        };
      });
      console.table(rows);
    }
  } finally {
    if (option('keep') === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--child')) await child();
else parent();
