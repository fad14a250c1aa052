// Parquet in one run (issue 28): for the bench files (bench/parquet-files.mjs: 4 M rows, four ALP
// columns, 4 row groups, UNCOMPRESSED / SNAPPY / ZSTD) it prints, per codec:
//   decoder   the ALP decoder alone on the same pages (alp.decodeInto of every page's payload,
//             already in memory, into one array per column)
//   fzstd     fzstd alone decompressing the same pages (ZSTD; zstddec alone beside it)
//   read      read() of the whole file, 1 thread, fresh output arrays / options.into (arrays reused:
//             values, and the validity of a column with nulls)
//   view      readView() of the whole file: each column decoded into the ALP module's memory
//   2 workers read() with a pool of 2 workers
//   memory    peak RSS of a read in a fresh process against output + 2 x the largest column chunk
// Each kind of read is also checked once against the values the files were built from (a
// difference fails the bench). Times are the fastest of ROUNDS (the machine is shared); ranges (fastest-slowest) are printed too.
//
//   node bench/parquet-bench.mjs            (under `flock /tmp/coord/cpu.lock` on a shared machine)
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decompress as fzstd } from 'fzstd';
import { ZSTDDecoder } from 'zstddec';
import { init, alp, memoryUsage } from '../js/index.js';
import { read, readView, readPages, inspect } from '../js/parquet.js';
import { createWorkerPool } from '../js/worker/index.js';
import { loadCodec } from '../js/parquet/codecs.js';
import { benchColumns, benchFiles, CODECS } from './parquet-files.mjs';
import { hugePagesLine } from './host.mjs';

const ROUNDS = 7;
const self = fileURLToPath(import.meta.url);

async function timed(fn, rounds = ROUNDS) {
  const times = [];
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    await fn();
    times.push((performance.now() - t) / 1000);
  }
  return { best: Math.min(...times), worst: Math.max(...times) };
}

// Every ALP page payload of the file, per column, with where its values go.
async function alpPages(file, columns) {
  const out = [];
  for (const column of columns) {
    const { dtype, pages } = await readPages(file, { column });
    let at = 0;
    const list = [];
    for (const p of pages) {
      const count = p.valid ? p.valid.reduce((s, v) => s + v, 0) : p.numRows;
      list.push({ payload: p.alp, at, count });
      at += p.numRows;
    }
    out.push({ dtype, rows: at, pages: list });
  }
  return out;
}

// The compressed bodies of every data page, with their decompressed sizes (from inspect()).
async function pageBodies(file, bytes) {
  const info = await inspect(file);
  const bodies = [];
  for (const g of info.rowGroups) {
    for (const c of g.columns) {
      for (const p of c.pages) {
        const start = p.offset + p.headerBytes;
        bodies.push({ body: bytes.subarray(start, start + p.compressedBytes), size: p.uncompressedBytes });
      }
    }
  }
  return bodies;
}

// This process's peak RSS: VmHWM (Linux; getrusage's maxRSS would carry the parent's peak over
// the spawn), else maxRSS.
function peakRss() {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)[1]) * 1024;
  } catch {
    return process.resourceUsage().maxRSS * 1024;
  }
}

// One read in this (fresh) process: its peak RSS over the process's own baseline (taken after
// the modules and decompressors have loaded), then the file's largest column chunk (read after the peak is taken).
async function memoryRun(file) {
  await init({ formats: ['alp'] });
  // the decompressors' code and fresh memories are part of the baseline, like the ALP module's
  await Promise.all(CODECS.map((c) => loadCodec(c)));
  const before = process.memoryUsage().rss;
  const r = await read(file);
  const peak = peakRss();
  const output = Object.values(r.columns).reduce((s, c) => s + c.values.byteLength + (c.valid?.byteLength ?? 0), 0);
  const wasm = memoryUsage().alp.bytes;
  const info = await inspect(file);
  const largestChunk = Math.max(...info.rowGroups.flatMap((g) => g.columns.map((c) => c.compressedBytes)));
  console.log(JSON.stringify({ before, peak, output, largestChunk, wasm }));
}

// The columns the bench files were built from (bench/parquet-files.mjs), made once.
let built = null;

const sameBytes = (a, b) => a.byteLength === b.byteLength && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

// A read's columns against those values, bit for bit, and their validity: the bench fails on a difference.
function checkRead(result, what) {
  built ??= benchColumns();
  for (const column of built) {
    const got = result.columns[column.name];
    if (!got || !sameBytes(got.values, column.values)) throw new Error(`${what}: column ${column.name}'s values differ from the ones the file was built from`);
    const valid = column.valid ?? null;
    if (valid ? !(got.valid && sameBytes(got.valid, valid)) : got.valid) throw new Error(`${what}: column ${column.name}'s validity differs from the one the file was built from`);
  }
}

const mvals = (values, seconds) => values / seconds / 1e6;
const range = (values, t) => `${mvals(values, t.best).toFixed(0)} (${mvals(values, t.worst).toFixed(0)}-${mvals(values, t.best).toFixed(0)})`;

async function main() {
  const load = os.loadavg();
  await init({ formats: ['alp'] });
  const files = await benchFiles({ log: (m) => console.error(m) });
  const pool = await createWorkerPool({ size: 2, init: { formats: ['alp'] } });
  const zstddec = new ZSTDDecoder();
  await zstddec.init();
  const rows = [];
  try {
    for (const codec of CODECS) {
      const file = files[codec];
      const head = await read(file, { rowEnd: 1 });
      const columns = Object.keys(head.columns);
      const values = (await inspect(file)).numRows * columns.length;
      const pages = await alpPages(file, columns);
      const outs = pages.map((c) => (c.dtype === 'f32' ? new Float32Array(c.rows) : new Float64Array(c.rows)));
      const decoder = await timed(() => {
        pages.forEach((c, i) => {
          for (const p of c.pages) alp.decodeInto(p.payload, outs[i].subarray(p.at, p.at + p.count));
        });
      });
      // Reused arrays: the values, and the validity of the columns with nulls (a byte a row).
      const withNulls = new Set(Object.entries((await read(file)).columns).filter(([, c]) => c.valid).map(([name]) => name));
      const into = Object.fromEntries(columns.map((name, i) => [name, withNulls.has(name) ? { values: outs[i], valid: new Uint8Array(outs[i].length) } : outs[i]]));
      const fresh = await timed(() => read(file));
      const reused = await timed(() => read(file, { into }));
      const view = await timed(async () => (await readView(file)).release());
      const workers = await timed(() => read(file, { pool }));
      // the pool's like-for-like of `into`: reused arrays in shared memory, which the workers fill
      const sharedArray = (Type, n) => new Type(new SharedArrayBuffer(n * Type.BYTES_PER_ELEMENT));
      const shared = Object.fromEntries(
        columns.map((name, i) => {
          const values = sharedArray(outs[i].constructor, outs[i].length);
          return [name, withNulls.has(name) ? { values, valid: sharedArray(Uint8Array, outs[i].length) } : values];
        }),
      );
      const workersInto = await timed(() => read(file, { pool, into: shared }));
      // Every kind of read above, once more, checked against the values the file was built from.
      checkRead(await read(file), `${codec} read()`);
      checkRead(await read(file, { into }), `${codec} read() into`);
      const viewed = await readView(file);
      checkRead(viewed, `${codec} readView()`);
      viewed.release();
      checkRead(await read(file, { pool }), `${codec} read() with 2 workers`);
      checkRead(await read(file, { pool, into: shared }), `${codec} read() with 2 workers into shared arrays`);
      let zstd = null;
      if (codec === 'ZSTD') {
        const bodies = await pageBodies(file, new Uint8Array(readFileSync(file)));
        zstd = {
          fzstd: await timed(() => bodies.forEach((b) => fzstd(b.body, new Uint8Array(b.size))), 3),
          zstddec: await timed(() => bodies.forEach((b) => zstddec.decode(b.body, b.size))),
        };
      }
      const mem = JSON.parse(execFileSync(process.execPath, [self, '--memory', file], { encoding: 'utf8' }));
      rows.push({ codec, mb: statSync(file).size / 1e6, values, decoder, fresh, reused, view, workers, workersInto, zstd, mem });
    }
    rows.trips = await roundTrips();
  } finally {
    await pool.terminate();
  }
  const MB = (b) => (b / 1e6).toFixed(0);
  console.log('\n## Parquet read (4 M rows x 4 ALP columns, 4 row groups, pages of 25 000 rows), M values/s: fastest (slowest-fastest)\n');
  console.log(`load average at the start: ${load.map((x) => x.toFixed(2)).join(', ')}; at the end: ${os.loadavg().map((x) => x.toFixed(2)).join(', ')} (${os.cpus().length} cores); ${hugePagesLine()}\n`);
  console.log('| file | MB | ALP decoder alone | read() 1 thread | ÷ decoder | read() into reused arrays | ÷ decoder | readView() | ÷ decoder | read() 2 workers | ÷ 1 thread | 2 workers into reused shared arrays | ÷ 1 thread into | fzstd alone | zstddec alone | read() ÷ fzstd |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const z = r.zstd;
    console.log(
      `| ${r.codec} | ${r.mb.toFixed(1)} | ${range(r.values, r.decoder)} | ${range(r.values, r.fresh)} | ${(r.decoder.best / r.fresh.best).toFixed(2)} | ` +
        `${range(r.values, r.reused)} | ${(r.decoder.best / r.reused.best).toFixed(2)} | ${range(r.values, r.view)} | ${(r.decoder.best / r.view.best).toFixed(2)} | ${range(r.values, r.workers)} | ${(r.fresh.best / r.workers.best).toFixed(2)} | ` +
        `${range(r.values, r.workersInto)} | ${(r.reused.best / r.workersInto.best).toFixed(2)} | ` +
        `${z ? range(r.values, z.fzstd) : '–'} | ${z ? range(r.values, z.zstddec) : '–'} | ${z ? (z.fzstd.best / r.fresh.best).toFixed(2) : '–'} |`,
    );
  }
  console.log('\n## Parquet over HTTP from nothing, answers after 50 ms (loopback): alp_arade.parquet (180 kB)\n');
  console.log('| columns | requests | bytes | wall time, ms | ÷ 50 ms (round trips) | waves counted by the server |');
  console.log('|---:|---:|---:|---:|---:|---:|');
  for (const t of rows.trips) console.log(`| ${t.columns} | ${t.requests} | ${t.bytes} | ${t.ms.toFixed(0)} | ${(t.ms / 50).toFixed(1)} | ${t.waves} |`);
  console.log('\n## Parquet read: peak memory of one whole read in a fresh process (MB)\n');
  console.log('| file | output | largest column chunk | peak RSS over the baseline | bound: output + 2 x chunk | ALP wasm memory |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const { codec, mem } of rows) {
    const over = mem.peak - mem.before;
    console.log(`| ${codec} | ${MB(mem.output)} | ${MB(mem.largestChunk)} | ${MB(over)} | ${MB(mem.output + 2 * mem.largestChunk)} | ${MB(mem.wasm)} |`);
  }
}

// Round trips (issue 27): one column, then every column, of the corpus file alp_arade.parquet
// (180 kB: transfer and decoding take little) from nothing, over a loopback server that answers
// every request after 50 ms; wall time / 50 ms (fastest of 5) counts the sequential round trips.
async function roundTrips() {
  const { startServer, serveRange } = await import('../tests/js/helpers/io-test-server.js');
  const { corpusRoot } = await import('../tests/js/helpers/corpus.js');
  const data = readFileSync(path.join(corpusRoot, 'parquet-alp/alp_arade.parquet'));
  const server = await startServer();
  const DELAY = 50;
  server.delay = DELAY;
  try {
    const out = [];
    for (const columns of [['value3'], undefined]) {
      let best = null;
      for (let round = 0; round < 5; round++) {
        server.handler = (req, res) => serveRange(req, res, data); // resets the log and the wave count
        const t = performance.now();
        const r = await read(`${server.base}/alp_arade.parquet`, { columns });
        const ms = performance.now() - t;
        if (best === null || ms < best.ms) best = { columns: Object.keys(r.columns).length, requests: r.stats.requests, bytes: r.stats.bytes, ms, waves: server.state.waves };
      }
      out.push(best);
    }
    return out;
  } finally {
    await server.close();
  }
}

if (process.argv[2] === '--memory') await memoryRun(process.argv[3]);
else await main();
