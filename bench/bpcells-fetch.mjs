// Bytes and requests a BPCells reader fetches over HTTP from the large corpus matrix: open, one
// column, 100 random columns (one read each, on a fresh open), and everything.
// Usage: node bench/bpcells-fetch.mjs   (served from a counting Range server on 127.0.0.1)
import { createServer } from 'node:http';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init, bpcells } from '../js/index.js';

const dir = fileURLToPath(new URL('../../shared/corpus/bpcells/packed_uint_large_20000x3000/matrix/', import.meta.url));
const files = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(dir + f)]));
const total = Object.values(files).reduce((s, b) => s + b.length, 0);
let requests = 0;
let bytes = 0;

// Every answer waits this long (--delay MS, default 50): wall time / delay = sequential round trips (issue 27).
const delayArg = process.argv.indexOf('--delay');
const DELAY = delayArg > 0 ? Number(process.argv[delayArg + 1]) : 50;
const server = createServer((req, res) => setTimeout(() => answer(req, res), DELAY));
function answer(req, res) {
  const body = files[decodeURIComponent(req.url.slice(1))];
  if (!body) return res.writeHead(404).end();
  requests++;
  const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
  if (req.method === 'HEAD') return res.writeHead(200, { 'Content-Length': body.length, 'Accept-Ranges': 'bytes' }).end();
  if (!range) {
    bytes += body.length;
    return res.writeHead(200, { 'Content-Length': body.length, 'Accept-Ranges': 'bytes' }).end(body);
  }
  const start = Number(range[1]);
  const end = Math.min(Number(range[2]), body.length - 1);
  const part = body.subarray(start, end + 1);
  bytes += part.length;
  res.writeHead(206, { 'Content-Range': `bytes ${start}-${end}/${body.length}`, 'Content-Length': part.length }).end(part);
}
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/`;
await init();

async function measure(label, fn) {
  requests = 0;
  bytes = 0;
  const t0 = performance.now();
  await fn();
  const wall = performance.now() - t0;
  const pct = ((100 * bytes) / total).toFixed(2);
  console.log(`| ${label} | ${requests} | ${bytes} | ${pct} % | ${wall.toFixed(0)} | ${(wall / DELAY).toFixed(1)} |`);
}

console.log(`directory: ${total} bytes in ${Object.keys(files).length} files\n`);
console.log('| operation | requests | bytes | of the directory | wall ms | round trips |\n|---|---:|---:|---:|---:|---:|');
let m;
await measure('open', async () => { m = await bpcells.open(url); });
await measure('1 column (after open)', async () => { await m.read(1500, 1501); });
let seed = 12345;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const cols = Array.from({ length: 100 }, () => Math.floor(random() * m.shape[1]));
await measure('100 random columns, one read each (after a fresh open)', async () => {
  const fresh = await bpcells.open(url);
  requests = 0;
  bytes = 0;
  for (const c of cols) await fresh.read(c, c + 1);
});
await measure('everything (open + read all)', async () => { const all = await bpcells.open(url); await all.read(); });
server.close();
