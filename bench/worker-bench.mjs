#!/usr/bin/env node
// Worker pool speed-up on many Pco files: the main thread decoding them one after another
// (pco.decode) against numdecode/worker pools of 1..N workers (decodePcoMany).
//
//   node bench/worker-bench.mjs [--workers 1,2] [--runs 3] [--warmups 3] [--small-repeat 10] [--large-repeat 2]
//
// Workloads, read from the corpus in place (../shared/corpus/pco):
//   large: the bench_* files (2M f64, 2M i64, 1.5M u32 values), each --large-repeat times
//   small: every other standalone file that has expected values, each --small-repeat times
// Times: median and best of --runs runs, each pool interleaved with the main thread in a phase of
// its own (see below); on a machine shared with other work the best run is the closest to an idle
// machine. Pool start-up (loading the module in each worker) is reported separately and not counted.
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInfo, init, pco } from '../js/index.js';
import { createWorkerPool } from '../js/worker/index.js';
import { hugePagesLine } from './host.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pcoDir = process.env.NUMDECODE_CORPUS_DIR
  ? path.join(process.env.NUMDECODE_CORPUS_DIR, 'pco')
  : path.resolve(root, '../shared/corpus/pco');

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}
const workerCounts = option('workers', '1,2').split(',').map(Number);
const runs = Number(option('runs', '3'));
// Warm-up calls of each contender before the timed ones (a fresh pool's workers run cold code at
// first: with one, a pool of 1 on the small files measured 0.70-0.80 of the main thread on
// 2026-12-06, 0.80-0.91 with ten; the main thread's code is warm from the phases before).
const warmups = Number(option('warmups', '3'));
const smallRepeat = Number(option('small-repeat', '10'));
const largeRepeat = Number(option('large-repeat', '2'));

const manifest = JSON.parse(readFileSync(path.join(pcoDir, 'manifest.json'), 'utf8'));
const standalone = manifest.filter((c) => c.format === 'standalone');
const read = (c) => new Uint8Array(readFileSync(path.join(pcoDir, c.file)));
const repeat = (list, n) => Array.from({ length: n }, () => list).flat();

const workloads = {
  large: repeat(standalone.filter((c) => c.name.startsWith('bench_')).map(read), largeRepeat),
  small: repeat(standalone.filter((c) => !c.name.startsWith('bench_') && c.expected !== null).map(read), smallRepeat),
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

await init();
console.log(`numdecode ${buildInfo().version} (${buildInfo().simd ? 'SIMD' : 'scalar'}), Node ${process.versions.node}, ` +
  `${os.availableParallelism?.() ?? os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}, ${hugePagesLine()}, ${runs} runs after ${warmups} warm-up calls`);

// Each pool is measured in a phase of its own, interleaved with the main thread, the pool alone
// alive: measured in one process together, a pool of 2's outputs (allocated in its workers,
// freed by the main thread back to those workers' malloc arenas) left the pool of 1 to fault in
// fresh memory, 0.71-0.73 of the main thread against 0.85-0.95 alone (2026-11-29, large files).
const rows = [];
for (const [name, files] of Object.entries(workloads)) {
  const inBytes = files.reduce((s, f) => s + f.byteLength, 0);
  let outBytes = 0;
  const mainThread = async () => {
    outBytes = 0;
    for (const f of files) outBytes += pco.decode(f).byteLength;
  };
  const phases = [];
  for (const n of workerCounts) {
    const t0 = performance.now();
    const pool = await createWorkerPool({ size: n });
    const startup = performance.now() - t0;
    const contenders = [mainThread, () => pool.decodePcoMany(files)];
    // Warm-up (wasm tier-up in every thread), then runs interleaved so that load from other
    // processes falls on both alike.
    for (let w = 0; w < warmups; w++) for (const run of contenders) await run();
    const samples = contenders.map(() => []);
    for (let r = 0; r < runs; r++) {
      for (const [i, run] of contenders.entries()) {
        const t = performance.now();
        await run();
        samples[i].push(performance.now() - t);
      }
    }
    await pool.terminate();
    phases.push({ n, startup, main: samples[0], pool: samples[1] });
  }
  const allMain = phases.flatMap((ph) => ph.main);
  rows.push({
    workload: name,
    files: files.length,
    'MB in': (inBytes / 1e6).toFixed(1),
    'MB out': (outBytes / 1e6).toFixed(1),
    how: 'main thread (every phase)',
    'median ms': median(allMain).toFixed(0),
    speedup: '1.00',
    'best ms': Math.min(...allMain).toFixed(0),
    'best speedup': '1.00',
  });
  for (const { n, startup, main, pool } of phases) {
    rows.push({
      workload: '',
      files: '',
      'MB in': '',
      'MB out': '',
      how: `pool of ${n} (start-up ${startup.toFixed(0)} ms) ÷ main thread in its phase`,
      'median ms': median(pool).toFixed(0),
      speedup: (median(main) / median(pool)).toFixed(2),
      'best ms': Math.min(...pool).toFixed(0),
      'best speedup': (Math.min(...main) / Math.min(...pool)).toFixed(2),
    });
  }
}
console.table(rows);
