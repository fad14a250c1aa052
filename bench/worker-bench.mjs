#!/usr/bin/env node
// Worker pool speed-up on many Pco files: the main thread decoding them one after another
// (pco.decode) against numdecode/worker pools of 1..N workers (decodePcoMany).
//
//   node bench/worker-bench.mjs [--workers 1,2] [--runs 3] [--small-repeat 10] [--large-repeat 2]
//
// Workloads, read from the corpus in place (../shared/corpus/pco):
//   large: the bench_* files (2M f64, 2M i64, 1.5M u32 values), each --large-repeat times
//   small: every other standalone file that has expected values, each --small-repeat times
// Times: median and best of --runs runs, interleaved; on a machine shared with other work the
// best run is the closest to an idle machine. Pool start-up (loading the module in each worker)
// is reported separately and not counted.
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInfo, init, pco } from '../js/index.js';
import { createWorkerPool } from '../js/worker/index.js';

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
  `${os.availableParallelism?.() ?? os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}, ${runs} runs`);

const pools = [];
for (const n of workerCounts) {
  const t0 = performance.now();
  const pool = await createWorkerPool({ size: n });
  pools.push({ n, pool, startup: performance.now() - t0 });
}

const rows = [];
for (const [name, files] of Object.entries(workloads)) {
  const inBytes = files.reduce((s, f) => s + f.byteLength, 0);
  let outBytes = 0;
  const contenders = [
    {
      how: 'main thread',
      run: async () => {
        outBytes = 0;
        for (const f of files) outBytes += pco.decode(f).byteLength;
      },
    },
    ...pools.map(({ n, pool, startup }) => ({
      how: `pool of ${n} (start-up ${startup.toFixed(0)} ms)`,
      run: () => pool.decodePcoMany(files),
    })),
  ];
  // Warm-up (wasm tier-up in every thread), then runs interleaved so that load from other
  // processes falls on every contender alike.
  for (const c of contenders) await c.run();
  const samples = contenders.map(() => []);
  for (let r = 0; r < runs; r++) {
    for (const [i, c] of contenders.entries()) {
      const t0 = performance.now();
      await c.run();
      samples[i].push(performance.now() - t0);
    }
  }
  const mainMs = median(samples[0]);
  const mainBest = Math.min(...samples[0]);
  for (const [i, c] of contenders.entries()) {
    const ms = median(samples[i]);
    const best = Math.min(...samples[i]);
    rows.push({
      workload: i === 0 ? name : '',
      files: i === 0 ? files.length : '',
      'MB in': i === 0 ? (inBytes / 1e6).toFixed(1) : '',
      'MB out': i === 0 ? (outBytes / 1e6).toFixed(1) : '',
      how: c.how,
      'median ms': ms.toFixed(0),
      speedup: (mainMs / ms).toFixed(2),
      'best ms': best.toFixed(0),
      'best speedup': (mainBest / best).toFixed(2),
    });
  }
}
for (const { pool } of pools) await pool.terminate();
console.table(rows);
