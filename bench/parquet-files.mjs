// The Parquet benchmark's files, built here (never committed) into the system's temp directory
// and kept there between runs: 4 M rows in 4 row groups, pages of 25 000 rows, four ALP columns
// like the ones real tables hold (two DOUBLE prices, one of them OPTIONAL with 1 % nulls, a FLOAT
// temperature, a DOUBLE sensor walk), once per codec: UNCOMPRESSED, SNAPPY (hyparquet-writer's
// snappy), ZSTD level 3 (the zstd library itself, compiled to wasm: @bokuweb/zstd-wasm).
//
//   import { benchFiles } from './parquet-files.mjs';
//   const { uncompressed, snappy, zstd } = await benchFiles();   // paths
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { init as initZstd, compress as zstdCompress } from '@bokuweb/zstd-wasm';
import { init } from '../js/index.js';
import { buildParquet, compress } from '../tests/js/parquet/parquet-build.js';
import { rng } from '../tests/js/helpers/seeded-random.js';

export const ROWS = 4_000_000;
export const ROW_GROUPS = 4;
export const PAGE_ROWS = 25_000;
export const CODECS = ['UNCOMPRESSED', 'SNAPPY', 'ZSTD'];
// Bump when the data or layout changes, so that stale files are rebuilt.
const VERSION = 2;

/** The columns' values (seeded: the same every run). */
export function benchColumns(rows = ROWS) {
  const random = rng(20261125);
  const price = new Float64Array(rows);
  const bid = new Float64Array(rows);
  const bidValid = new Uint8Array(rows);
  const temperature = new Float32Array(rows);
  const walk = new Float64Array(rows);
  let p = 4182.5;
  let t = 15;
  let w = 0;
  for (let i = 0; i < rows; i++) {
    // a traded price in cents, unchanged on 60 % of ticks; the bid a few eighths of a cent below
    if (random() < 0.4) p += Math.round((random() - 0.5) * 40) / 100;
    price[i] = Math.round(p * 100) / 100;
    bidValid[i] = random() < 0.01 ? 0 : 1;
    bid[i] = bidValid[i] ? Math.round((p - Math.floor(random() * 8) * 0.0125) * 10000) / 10000 : 0;
    // a thermometer read to 0.1 degree that changes now and then: zstd finds its repeats
    if (random() < 0.05) t += random() - 0.5;
    temperature[i] = Math.fround(Math.round(t * 10) / 10);
    // a noisy sensor walk to 6 decimals: ALP's widest column, which zstd cannot shrink
    w += (random() - 0.5) * 0.5;
    walk[i] = Math.round((w + (random() - 0.5) * 0.02) * 1e6) / 1e6;
  }
  return [
    { name: 'price', type: 'DOUBLE', values: price, required: true },
    { name: 'bid', type: 'DOUBLE', values: bid, valid: bidValid },
    { name: 'temperature', type: 'FLOAT', values: temperature, required: true },
    { name: 'walk', type: 'DOUBLE', values: walk, required: true },
  ];
}

function zstdLevel3(codec, bytes) {
  return codec === 'ZSTD' ? zstdCompress(bytes, 3) : compress(codec, bytes);
}

/** Builds the files that are missing; resolves to {UNCOMPRESSED: path, SNAPPY: path, ZSTD: path}. */
export async function benchFiles({ dir = path.join(os.tmpdir(), `numdecode-parquet-bench-v${VERSION}`), log = () => {} } = {}) {
  mkdirSync(dir, { recursive: true });
  const paths = Object.fromEntries(CODECS.map((c) => [c, path.join(dir, `bench-${c.toLowerCase()}.parquet`)]));
  const missing = CODECS.filter((c) => !existsSync(paths[c]));
  if (missing.length === 0) return paths;
  await init({ formats: ['alp'] });
  await initZstd();
  const columns = benchColumns();
  const groupRows = ROWS / ROW_GROUPS;
  for (const codec of missing) {
    const started = performance.now();
    const bytes = buildParquet({
      columns,
      rowGroups: Array(ROW_GROUPS).fill(groupRows),
      codec,
      compress: zstdLevel3,
      pages: () => Array.from({ length: groupRows / PAGE_ROWS }, () => ({ rows: PAGE_ROWS, kind: 'v1', layout: 'merged' })),
    });
    const tmp = `${paths[codec]}.tmp`;
    writeFileSync(tmp, bytes);
    renameSync(tmp, paths[codec]); // never a half-written file under the real name
    log(`built ${paths[codec]} (${(bytes.length / 1e6).toFixed(1)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  return paths;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchFiles({ log: console.log }));
}
