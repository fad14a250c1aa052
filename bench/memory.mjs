// `npm run bench`, memory (issue 31): for each case, in a fresh Node process (a fresh module), the
// module's wasm memory before one call, after it (wasm memory never shrinks, so that is its peak)
// and after releaseMemory(), with the process' RSS and peak RSS. The target: growth for one decode
// <= 1.2 x (input + output) + 4 MB, and a release back within 8 MB of a fresh load. Then the
// whole reads of the containers (bench/memory-reads.mjs): peak RSS against output + 2 x the
// largest compressed unit.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MB = 1 << 20;
const self = fileURLToPath(import.meta.url);

// name -> what one call of it is; each builds its input with the public API only.
async function caseList() {
  const { cases } = await import('./cases.mjs');
  const { tiledPcoFile } = await import('../tests/js/helpers/pco-tiled.js');
  const out = [];
  for (const c of cases) {
    out.push({ name: `${c.name} decode`, format: c.format, load: () => c.load(), run: c.run });
    if (c.view) {
      out.push({ name: `${c.name} decodeView`, format: c.format, load: () => c.load(), run: (api, bytes) => c.view(api, bytes), keepsOutput: true });
    }
  }
  // The narrow-dtype files: the reference's chunks tiled into millions of values.
  for (const [file, times, label] of [
    ['classic_u8_n1000', 16700, 'u8 16.7 M values'],
    ['classic_u16_n1000', 6000, 'u16 6 M values'],
  ]) {
    const load = (api) => tiledPcoFile(api.pco.inspect, file, times).bytes;
    out.push({ name: `${label} decode`, format: 'pco', load, run: (api, bytes) => api.pco.decode(bytes) });
    out.push({ name: `${label} decodeView`, format: 'pco', load, run: (api, bytes) => api.pco.decodeView(bytes), keepsOutput: true });
  }
  return out;
}

// One case, in this (fresh) process: prints its figures as JSON.
async function measure(index) {
  const api = await import('../js/index.js');
  const c = (await caseList())[index];
  await api.init({ formats: [c.format] });
  const bytes = c.load(api);
  const fresh = api.memoryUsage()[c.format].bytes;
  const rssBefore = process.memoryUsage().rss;
  const result = c.run(api, bytes);
  const peak = api.memoryUsage()[c.format].bytes;
  const outBytes = result?.byteLength ?? 0;
  result?.release?.(); // a view: released before the module is
  const released = (await api.releaseMemory())[c.format].after;
  console.log(JSON.stringify({
    name: c.name, inBytes: bytes.length, outBytes, fresh, peak, released,
    rss: process.memoryUsage().rss - rssBefore, maxRss: process.resourceUsage().maxRSS * 1024,
  }));
}

if (process.argv[2] === '--case') {
  await measure(Number(process.argv[3]));
} else {
  const list = await caseList();
  const rows = list.map((_, i) => JSON.parse(execFileSync(process.execPath, [self, '--case', String(i)], { encoding: 'utf8' })));
  // A bench case's view releases itself inside run(): its output is the decode row's before it.
  rows.forEach((r, i) => {
    if (r.outBytes === 0 && i > 0 && r.name.endsWith('decodeView')) r.outBytes = rows[i - 1].outBytes;
  });
  const mb = (x) => (x / MB).toFixed(1);
  console.log('\nWasm memory per call (fresh process each; MB): growth target <= 1.2 x (in + out) + 4 MB; after releaseMemory() within 8 MB of a fresh load');
  console.log(`${'case'.padEnd(44)} ${'in'.padStart(6)} ${'out'.padStart(6)} ${'fresh'.padStart(6)} ${'peak'.padStart(6)} ${'growth'.padStart(7)} ${'bound'.padStart(6)} ${'released'.padStart(8)} ${'RSS+'.padStart(6)} ${'maxRSS'.padStart(7)}  met`);
  for (const r of rows) {
    const growth = r.peak - r.fresh;
    const bound = 1.2 * (r.inBytes + r.outBytes) + 4 * MB;
    const met = growth <= bound && r.released <= r.fresh + 8 * MB ? 'yes' : 'NO';
    console.log(`${r.name.padEnd(44)} ${mb(r.inBytes).padStart(6)} ${mb(r.outBytes).padStart(6)} ${mb(r.fresh).padStart(6)} ${mb(r.peak).padStart(6)} ${mb(growth).padStart(7)} ${mb(bound).padStart(6)} ${mb(r.released).padStart(8)} ${mb(r.rss).padStart(6)} ${mb(r.maxRss).padStart(7)}  ${met}`);
  }
  // Whole reads of Parquet, Zarr and BPCells: peak RSS against output + 2 x the largest compressed unit.
  const { wholeReads } = await import('./memory-reads.mjs');
  await wholeReads();
}
