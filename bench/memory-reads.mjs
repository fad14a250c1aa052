// `node bench/memory.mjs` (its second table), or alone: `node bench/memory-reads.mjs [--runs 2]
// [--tiles 20] [--only runtime,parquet,zarr,bpcells] [--ahead] [--warm 1]` (--ahead: also a first read
// with V8's compiling moved before the baseline; --warm: reads before a "later" one). Whole reads of each container against issue 31's
// target: peak RSS <= output + 2 x the largest compressed unit (a Parquet column chunk, a Zarr
// chunk (an inner chunk of a shard), a BPCells packed stream: its words and seek tables) + the
// runtime's baseline.
//
// Each case runs in a fresh Node process, so peaks do not mix. There the modules are loaded and
// the file opened (Parquet: its footer read; Zarr: the array opened with zarrita; BPCells: the
// matrix opened), garbage collected, and the kernel's high-water mark reset (Linux:
// /proc/self/clear_refs "5"): the baseline is the RSS then. The peak is VmHWM after the read (the
// kernel's own maximum, not a sample); without /proc, getrusage's maxRSS (which can include the
// loading's own peak: an overestimate). Output is every byte the read hands back.
//
// Files: the Parquet bench files (bench/parquet-files.mjs: 4 M rows, built into the temp dir once,
// never committed); the big Zarr store (../shared/tools/make-big-zarr.mjs, --tiles; built into a
// temp dir and removed after); the largest BPCells corpus matrices (directory and HDF5), whole
// through readColumns(), the directory also with cacheBytes: 0 (no packed words kept in wasm
// memory for the next read: by default a whole read keeps both streams there).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MB = 1 << 20;
const self = fileURLToPath(import.meta.url);
const root = path.resolve(path.dirname(self), '..');
const corpus = process.env.NUMDECODE_CORPUS_DIR ? path.resolve(process.env.NUMDECODE_CORPUS_DIR) : path.resolve(root, '../shared/corpus');

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}

// ---- in the child: baseline, one read, peak ------------------------------------------------------
function status(field) {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  return Number(m[1]) * 1024;
}

function resetPeak() {
  globalThis.gc?.();
  globalThis.gc?.();
  try {
    writeFileSync('/proc/self/clear_refs', '5'); // VmHWM := VmRSS
    return { baseline: status('VmRSS'), peak: () => status('VmHWM') };
  } catch {
    const baseline = process.memoryUsage().rss;
    return { baseline, peak: () => process.resourceUsage().maxRSS * 1024 };
  }
}

const outputBytes = (x) => (ArrayBuffer.isView(x) ? x.byteLength : 0);

async function parquetCase(file) {
  const { init } = await import('../js/index.js');
  const { read } = await import('../js/parquet.js');
  const { readFooter } = await import('../js/parquet/footer.js');
  const { openFile } = await import('../js/io/index.js');
  const { loadCodec } = await import('../js/parquet/codecs.js');
  await init({ formats: ['alp'] });
  const f = openFile(file, { gap: 0 });
  const { metadata } = await readFooter(f, file);
  f.close();
  const codecs = new Set(metadata.row_groups.flatMap((g) => g.columns.map((c) => c.meta_data.codec)));
  await Promise.all([...codecs].map((c) => loadCodec(c))); // the decompressors' code and fresh memories
  const unit = Math.max(...metadata.row_groups.flatMap((g) => g.columns.map((c) => Number(c.meta_data.total_compressed_size))));
  return { unit, run: async () => Object.values((await read(file)).columns).reduce((s, c) => s + outputBytes(c.values) + outputBytes(c.valid), 0) };
}

// Every stored chunk's size (inner chunks of shards: from the shard index).
function zarrChunkSizes(dir) {
  const meta = JSON.parse(readFileSync(path.join(dir, 'zarr.json'), 'utf8'));
  const sharding = meta.codecs.find((c) => c.name === 'sharding_indexed');
  const sizes = [];
  (function walk(d) {
    for (const e of readdirSync(d)) {
      const p = path.join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (e !== 'zarr.json') {
        if (!sharding) {
          sizes.push(statSync(p).size);
          continue;
        }
        const bytes = readFileSync(p);
        const n = meta.chunk_grid.configuration.chunk_shape.reduce((a, s, k) => a * (s / sharding.configuration.chunk_shape[k]), 1);
        const at = bytes.length - 16 * n - (sharding.configuration.index_codecs.some((c) => c.name === 'crc32c') ? 4 : 0);
        for (let i = 0; i < n; i++) {
          const size = bytes.readBigUint64LE(at + 16 * i + 8);
          if (size !== 2n ** 64n - 1n) sizes.push(Number(size));
        }
      }
    }
  })(dir);
  return sizes;
}

async function zarrCase(store, name, style = 'read') {
  const { init } = await import('../js/index.js');
  const zarr = await import('zarrita');
  const { read, readView } = await import('../js/zarr.js');
  const { LocalStore } = await import('../js/zarr/local-store.js');
  await init({ formats: ['pco'] });
  const arr = await zarr.open.v3(zarr.root(new LocalStore(store)).resolve(name), { kind: 'array' });
  if (style === 'readView') {
    // The output in the Pco module's memory, every chunk decoded where it lies: no slab, no copy.
    return {
      run: async () => {
        const view = await readView(arr);
        const bytes = outputBytes(view.data);
        view.release();
        return bytes;
      },
    };
  }
  return { run: async () => outputBytes((await read(arr)).data) };
}

async function bpcellsCase(source, options = {}) {
  const { init, bpcells } = await import('../js/index.js');
  await init({ formats: ['bpcells'] });
  const m = await bpcells.open(source, options);
  const run = async () => {
    const r = await m.readColumns();
    return outputBytes(r.idxptr) + outputBytes(r.index) + outputBytes(r.val);
  };
  return { run, close: () => m.close() };
}

// The largest packed stream (index or val: its words, *_idx, *_starts and *_idx_offsets together,
// what its decoder reads): a whole read fetches each stream whole. Measured in the parent: h5wasm's
// own File (a second h5wasm instance) in the child added ~6 MB to a later read's peak there.
const STREAM_FILES = ['data', 'idx', 'starts', 'idx_offsets'];
async function streamBytes(source) {
  if (statSync(source).isDirectory()) {
    const size = (f) => {
      try {
        return statSync(path.join(source, f)).size;
      } catch {
        return 0;
      }
    };
    return Math.max(...['index', 'val'].map((p) => STREAM_FILES.reduce((s, f) => s + size(`${p}_${f}`), 0)));
  }
  const h5wasm = await import('h5wasm/node');
  await h5wasm.ready;
  const f = new h5wasm.File(source, 'r');
  try {
    const group = f.keys().find((k) => f.get(k)?.keys?.().includes('index_data')) ?? '';
    const size = (n) => {
      const d = f.get(group ? `${group}/${n}` : n);
      return d ? d.metadata.total_size * d.metadata.size : 0; // its bytes as stored (no filter here)
    };
    return Math.max(...['index', 'val'].map((p) => STREAM_FILES.reduce((s, n) => s + size(`${p}_${n}`), 0)));
  } finally {
    f.close();
  }
}

// The runtime's own noise, no numdecode: as many awaited steps as t2m has chunks, each making a
// few small objects and a 64-byte array, as a read's bookkeeping does. What V8 and the allocator
// touch for that is the floor under any read's "over the bound".
async function runtimeCase(steps) {
  const run = async () => {
    for (let i = 0; i < steps; i++) {
      const item = { key: `c/${i}/0/1`, parts: [i, i + 1, { out: i }], bytes: new Uint8Array(64) };
      await Promise.resolve(item.parts.length + item.bytes.length);
    }
    return 0; // no output
  };
  await run(); // its code compiled, as numdecode's is in a later read
  return { unit: 0, run };
}

// numdecode's wasm memories together, and V8's own heap: where a peak went.
async function parts() {
  const { memoryUsage } = await import('../js/index.js');
  const wasm = Object.values(memoryUsage()).reduce((s, m) => s + m.bytes, 0);
  const { heapTotal } = process.memoryUsage();
  return { wasm, heap: heapTotal };
}

// 'first': the first read in the process. 'later': `warm` reads first (V8 compiles and tiers up
// the code it runs: ~8 MB of RSS for BPCells' wasm alone; its background tier-up of hot wasm
// functions can still be running in the second read: up to 3 MB on a Zarr read of 8 MB), then the
// file closed, the modules' memory given back (releaseMemory()) and the file opened again: what a
// long-running process pays per read once it gives memory back between reads. 'steady': the same
// without releaseMemory(): the modules keep the working memory the reads before touched.
async function child(when, kind, args, warm) {
  const makers = { parquet: parquetCase, zarr: zarrCase, bpcells: bpcellsCase, runtime: runtimeCase };
  const make = () => makers[kind](...args);
  let made = await make();
  if (when === 'later' || when === 'steady') {
    for (let i = 0; i < warm; i++) await made.run();
    made.close?.();
    if (when === 'later') await (await import('../js/index.js')).releaseMemory();
    made = await make();
  }
  const before = await parts();
  const { baseline, peak } = resetPeak();
  const output = await made.run();
  const at = peak();
  const after = await parts();
  process.stdout.write(JSON.stringify({ baseline, peak: at, output, unit: made.unit, wasm: after.wasm - before.wasm, heap: after.heap - before.heap }));
}

// ---- the table ------------------------------------------------------------------------------------
// A first read with V8's compiling done before the baseline: wasm compiled optimized at
// instantiation, JS left unoptimized (slower code; it shows what the first read itself holds).
const AHEAD_FLAGS = ['--no-liftoff', '--no-opt', '--no-maglev'];

export async function wholeReads({ runs = 2, tiles = '20', only = ['runtime', 'parquet', 'zarr', 'bpcells'], ahead = false, warm = 1, log = console.log } = {}) {
  const cases = [];
  let zarrDir = null;
  if (only.includes('runtime')) cases.push({ name: 'Node alone: 2 000 awaited small steps', kind: 'runtime', args: [2000], unit: 0 });
  if (only.includes('parquet')) {
    const { benchFiles } = await import('./parquet-files.mjs');
    const files = await benchFiles({ log: (m) => console.error(m) });
    for (const codec of ['UNCOMPRESSED', 'SNAPPY', 'ZSTD']) cases.push({ name: `Parquet 4 M rows x 4 columns, ${codec}`, kind: 'parquet', args: [files[codec]] });
  }
  if (only.includes('zarr')) {
    zarrDir = mkdtempSync(path.join(os.tmpdir(), 'numdecode-memory-zarr-'));
    const made = spawnSync(process.execPath, [path.resolve(corpus, '../tools/make-big-zarr.mjs'), zarrDir, tiles], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`make-big-zarr failed: ${made.stderr}`);
    for (const name of ['t2m', 'tp', 'counts']) {
      const unit = Math.max(...zarrChunkSizes(path.join(zarrDir, 'big.zarr', name)));
      cases.push({ name: `Zarr big store (${tiles} tiles) ${name}`, kind: 'zarr', args: [path.join(zarrDir, 'big.zarr'), name], unit });
      cases.push({ name: `  the same, readView()`, kind: 'zarr', args: [path.join(zarrDir, 'big.zarr'), name, 'readView'], unit });
    }
  }
  if (only.includes('bpcells')) {
    const dir = path.join(corpus, 'bpcells/packed_uint_large_20000x3000/matrix');
    const h5 = path.join(corpus, 'bpcells-hdf5/large_packed_uint_col_20000x2000/matrix.h5');
    const [dirUnit, h5Unit] = [await streamBytes(dir), await streamBytes(h5)];
    cases.push({ name: 'BPCells dir 20000x3000 readColumns()', kind: 'bpcells', args: [dir], unit: dirUnit });
    cases.push({ name: 'BPCells dir, cacheBytes: 0', kind: 'bpcells', args: [dir, { cacheBytes: 0 }], unit: dirUnit });
    cases.push({ name: 'BPCells HDF5 20000x2000 readColumns()', kind: 'bpcells', args: [h5], unit: h5Unit });
  }
  const rows = [];
  try {
    for (const c of cases) {
      for (const when of ahead ? ['first', 'ahead', 'later', 'steady'] : ['first', 'later', 'steady']) {
        // A readView's output is the module's memory: without releaseMemory() the next one reuses it.
        if (when === 'steady' && c.args[2] === 'readView') continue;
        const got = [];
        const flags = when === 'ahead' ? AHEAD_FLAGS : [];
        for (let r = 0; r < runs; r++) {
          const p = spawnSync(process.execPath, ['--expose-gc', ...flags, self, '--child', when === 'ahead' ? 'first' : when, c.kind, JSON.stringify(c.args), String(warm)], { encoding: 'utf8', cwd: root });
          if (p.status !== 0) throw new Error(`${c.name} failed: ${p.stderr}`);
          got.push(JSON.parse(p.stdout));
        }
        rows.push({ ...c, when, got: got.map((g) => ({ ...g, unit: c.unit ?? g.unit })) });
      }
    }
  } finally {
    if (zarrDir) rmSync(zarrDir, { recursive: true, force: true });
  }
  const mb = (x) => (x / MB).toFixed(1);
  const span = (xs) => (Math.min(...xs) === Math.max(...xs) ? mb(xs[0]) : `${mb(Math.min(...xs))}-${mb(Math.max(...xs))}`);
  log(`\nWhole reads, peak RSS over the baseline (a fresh process each, ${runs} runs; MB): target peak <= bound = output + 2 x the largest compressed unit.`);
  log(`"first": the first read in the process (V8 compiles and tiers up its code during it); "later": after ${warm} read${warm === 1 ? '' : 's'}, releaseMemory() and the file opened again; "steady": the same without releaseMemory()`);
  if (ahead) log(`"ahead": a first read in a process run with ${AHEAD_FLAGS.join(' ')} (wasm compiled optimized before the baseline)`);
  log(`${'case'.padEnd(42)} ${'read'.padEnd(6)} ${'baseline'.padStart(11)} ${'output'.padStart(7)} ${'unit'.padStart(5)} ${'bound'.padStart(6)} ${'peak'.padStart(11)} ${'over bound'.padStart(11)} ${'wasm+'.padStart(7)} ${'V8 heap+'.padStart(9)}  met`);
  for (const { name, when, got } of rows) {
    const { output, unit } = got[0];
    const bound = output + 2 * unit;
    const peaks = got.map((g) => g.peak - g.baseline);
    const met = peaks.every((p) => p <= bound) ? 'yes' : peaks.some((p) => p <= bound) ? 'some' : 'NO';
    log(`${name.padEnd(42)} ${when.padEnd(6)} ${span(got.map((g) => g.baseline)).padStart(11)} ${mb(output).padStart(7)} ${mb(unit).padStart(5)} ${mb(bound).padStart(6)} ${span(peaks).padStart(11)} ${span(peaks.map((p) => p - bound)).padStart(11)} ${span(got.map((g) => g.wasm)).padStart(7)} ${span(got.map((g) => g.heap)).padStart(9)}  ${met}`);
  }
  return rows;
}

if (process.argv[2] === '--child') {
  await child(process.argv[3], process.argv[4], JSON.parse(process.argv[5]), Number(process.argv[6]));
} else if (process.argv[1] === self) {
  await wholeReads({ runs: Number(option('runs', '2')), tiles: option('tiles', '20'), only: option('only', 'runtime,parquet,zarr,bpcells').split(','), ahead: process.argv.includes('--ahead'), warm: Number(option('warm', '1')) });
}
