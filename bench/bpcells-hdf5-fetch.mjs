// Bytes and requests the BPCells HDF5 reader fetches over HTTP from the large corpus file
// (large_packed_uint_col_20000x2000/matrix.h5, written by BPCells' write_matrix_hdf5): open, one
// column, 100 random columns (one read each, on a fresh open), and everything; plus what loading
// h5wasm adds (bytes of the module, time to instantiate). Round trips are counted as waves (requests
// arriving while none is answered) and timed (wall / delay, which adds the CPU time of HDF5's passes:
// the first open in a process also pays for V8 compiling HDF5's wasm, hence the second open's row).
// Usage: node bench/bpcells-hdf5-fetch.mjs [--block-size N] [--concurrency N] [--delay MS]   (a counting Range server on 127.0.0.1)
// --concurrency 6 reads as a browser does (its 6 requests per origin); Node's default is 64.
import { createServer } from 'node:http';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { init, bpcells } from '../js/index.js';

const file = fileURLToPath(new URL('../../shared/corpus/bpcells-hdf5/large_packed_uint_col_20000x2000/matrix.h5', import.meta.url));
const body = readFileSync(file);
const total = body.length;
const arg = process.argv.indexOf('--block-size');
const blockSize = arg > 0 ? Number(process.argv[arg + 1]) : undefined;
const capArg = process.argv.indexOf('--concurrency');
const concurrency = capArg > 0 ? Number(process.argv[capArg + 1]) : undefined;
let requests = 0;
let bytes = 0;
// Round trips counted as the test server counts them (tests/js/helpers/io-test-server.js): waves of
// requests that arrive while none is being answered. Wall time / delay also counts CPU time.
let waves = 0;
let inFlight = 0;

// Every answer waits this long (--delay MS, default 50): wall time / delay = sequential round trips (issue 27).
const delayArg = process.argv.indexOf('--delay');
const DELAY = delayArg > 0 ? Number(process.argv[delayArg + 1]) : 50;
const server = createServer((req, res) => {
  if (inFlight === 0) waves++;
  inFlight++;
  res.on('close', () => inFlight--);
  setTimeout(() => answer(req, res), DELAY);
});
function answer(req, res) {
  if (req.url !== '/matrix.h5') return res.writeHead(404).end();
  requests++;
  if (req.method === 'HEAD') return res.writeHead(200, { 'Content-Length': total, 'Accept-Ranges': 'bytes' }).end();
  const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
  if (!range) {
    bytes += total;
    return res.writeHead(200, { 'Content-Length': total }).end(body);
  }
  const start = Number(range[1]);
  const end = Math.min(Number(range[2]), total - 1);
  const part = body.subarray(start, end + 1);
  bytes += part.length;
  res.writeHead(206, { 'Content-Range': `bytes ${start}-${end}/${total}`, 'Content-Length': part.length }).end(part);
}
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/matrix.h5`;
await init();

const h5dir = path.dirname(fileURLToPath(import.meta.resolve('h5wasm')));
const esm = ['hdf5_hl.js', 'hdf5_util.js'].reduce((s, f) => s + statSync(path.join(h5dir, f)).size, 0);
const t0 = performance.now();
await import('h5wasm').then((h5) => h5.ready);
console.log(`h5wasm (dist/esm, wasm embedded): ${esm} bytes, import + instantiate ${(performance.now() - t0).toFixed(0)} ms\n`);

async function measure(label, fn) {
  requests = 0;
  bytes = 0;
  waves = 0;
  const t0 = performance.now();
  await fn();
  const wall = performance.now() - t0;
  const pct = ((100 * bytes) / total).toFixed(2);
  console.log(`| ${label} | ${requests} | ${bytes} | ${pct} % | ${waves} | ${wall.toFixed(0)} | ${(wall / DELAY).toFixed(1)} |`);
  return { requests, bytes };
}

console.log(`file: ${total} bytes${blockSize ? `, blockSize ${blockSize}` : ''}, requests in flight: ${concurrency ?? 'the default (64 in Node)'}\n`);
console.log(`| operation | requests | bytes | of the file | round trips (waves) | wall ms | wall / ${DELAY} ms |\n|---|---:|---:|---:|---:|---:|---:|`);
const options = { group: 'mat', blockSize, concurrency };
let m;
const opened = await measure('open', async () => {
  m = await bpcells.open(url, options);
});
const col = await measure('1 column (after open)', async () => {
  await m.read(1500, 1501);
});
await measure('open again (HDF5 code already run once in this process)', async () => {
  const again = await bpcells.open(url, options);
  again.close();
});
// Opt-in: every seek table held whole, index_starts too (by default over HTTP: the *_idx tables in Node, none at
// --concurrency 6), every data B-tree leaf with them.
let held;
await measure('open, prefetchBytes: 4 MiB (seek tables held)', async () => {
  held = await bpcells.open(url, { ...options, prefetchBytes: 4 << 20 });
});
await measure('1 column (after that open)', async () => {
  await held.read(1500, 1501);
});
held.close();
console.log(`| open + 1 column | ${opened.requests + col.requests} | ${opened.bytes + col.bytes} | ${((100 * (opened.bytes + col.bytes)) / total).toFixed(2)} % |`);
let seed = 12345;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const cols = Array.from({ length: 100 }, () => Math.floor(random() * m.shape[1]));
await measure('100 random columns, one read each (after a fresh open)', async () => {
  const fresh = await bpcells.open(url, options);
  requests = 0;
  bytes = 0;
  waves = 0;
  for (const c of cols) await fresh.read(c, c + 1);
  fresh.close();
});
await measure('everything (open + read all)', async () => {
  const all = await bpcells.open(url, options);
  await all.read();
  all.close();
});
m.close();
server.close();
