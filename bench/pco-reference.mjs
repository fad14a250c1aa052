// Pco beside the reference pcodec 1.0.3 in one run (`npm run bench`, or node bench/pco-reference.mjs):
// our wasm decoder (values left in wasm memory, as decodeView) against the reference built to wasm +
// SIMD128 (ref_decode into a buffer allocated once), alternating, median of 11 rounds each; and both
// native builds (ours from Google Benchmark, the reference's AVX2 bench). The reference builds are
// read in place from ../shared/tools/pcodec-ref/ (see its README); nothing of them is shipped.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import * as numdecode from '../js/index.js';
import { getModule, withInputs } from '../js/wasm.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const refDir = fileURLToPath(new URL('../../shared/tools/pcodec-ref/', import.meta.url));
const corpus = fileURLToPath(new URL('../../shared/corpus/pco/', import.meta.url));
const nativeBench = `${root}build-native/native_bench`;
const ROUNDS = 11;
const REF_DTYPE = { u32: 1, u64: 2, i32: 3, i64: 4, f32: 5, f64: 6, u16: 7, i16: 8, f16: 9, u8: 10, i8: 11 };
const WIDTH = { u8: 1, i8: 1, u16: 2, i16: 2, f16: 2, u32: 4, i32: 4, f32: 4, u64: 8, i64: 8, f64: 8 };

// The corpus's large files; the corpus has no large u8/u16/f32 file and neither tool here can
// write Pco, so those dtypes are left out (said in the output).
const manifest = JSON.parse(readFileSync(`${corpus}manifest.json`, 'utf8'));
const files = manifest.filter((c) => c.format === 'standalone' && c.name.startsWith('bench_'));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function loadReference() {
  const path = `${refDir}ref_pco.wasm`;
  if (!existsSync(path)) return null;
  const { instance } = await WebAssembly.instantiate(readFileSync(path), {});
  return instance.exports;
}

// One timing of fn in seconds (at least minSeconds of repetitions, the mean per call).
function timeOnce(fn, minSeconds = 0.15) {
  let n = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  do {
    fn();
    n++;
    elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  } while (elapsed < minSeconds);
  return elapsed / n;
}

function nativeOurs(file) {
  if (!existsSync(nativeBench)) return undefined;
  const out = execFileSync(nativeBench, ['--benchmark_format=json', '--benchmark_min_time=0.3', `--benchmark_filter=^pco_decode/${file}$`, '--benchmark_repetitions=5'], {
    encoding: 'utf8',
    maxBuffer: 16 << 20,
  });
  const runs = JSON.parse(out).benchmarks.filter((b) => b.run_type !== 'aggregate' && b['values/s'] !== undefined);
  return runs.length ? median(runs.map((b) => b['values/s'] / 1e6)) : undefined;
}

function nativeReference(c) {
  const bin = `${refDir}ref_bench_avx2`;
  if (!existsSync(bin)) return undefined;
  const out = execFileSync(bin, [`${corpus}${c.file}`, c.dtype, String(c.n), String(ROUNDS)], { encoding: 'utf8' });
  const m = /median_Mvals_per_s=([\d.]+)/.exec(out);
  return m ? Number(m[1]) : undefined;
}

await numdecode.init({ simd: true });
const mod = getModule();
const ref = await loadReference();
const rows = [];
for (const c of files) {
  const bytes = new Uint8Array(readFileSync(`${corpus}${c.file}`));
  // Ours: the decoder into wasm memory (the scratch buffer decodeView/decodeInto start from).
  const ours = () => withInputs([bytes], (p, len) => mod._numdecode_pco_decode(p, len, Infinity, 0));
  let refRun = null;
  if (ref) {
    const src = ref.ref_alloc(bytes.length);
    new Uint8Array(ref.memory.buffer, src, bytes.length).set(bytes);
    const dst = (ref.ref_alloc(c.n * WIDTH[c.dtype] + 8) + 7) & ~7;
    refRun = () => {
      const got = ref.ref_decode(REF_DTYPE[c.dtype], src, bytes.length, dst, c.n);
      if (Number(got) !== c.n) throw new Error(`reference decoded ${got} of ${c.n} values of ${c.file}`);
    };
  }
  ours();
  refRun?.();
  const oursTimes = [];
  const refTimes = [];
  for (let r = 0; r < ROUNDS; r++) {
    oursTimes.push(timeOnce(ours));
    if (refRun) refTimes.push(timeOnce(refRun));
  }
  const mv = (s) => c.n / s / 1e6;
  rows.push({
    file: c.name,
    dtype: c.dtype,
    n: c.n,
    oursWasm: mv(median(oursTimes)),
    refWasm: refRun ? mv(median(refTimes)) : undefined,
    oursNative: nativeOurs(c.file),
    refNative: nativeReference(c),
  });
}

const fmt = (x, d = 0) => (x === undefined || Number.isNaN(x) ? 'n/a' : x.toFixed(d));
const lines = [
  '| file | dtype | ours wasm Mval/s | reference wasm | ours ÷ ref (wasm) | ours native | reference native (AVX2) | ours ÷ ref (native) | ours wasm ÷ ref native |',
  '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.file} | ${r.dtype} | ${fmt(r.oursWasm)} | ${fmt(r.refWasm)} | ${fmt(r.oursWasm / r.refWasm, 2)} | ${fmt(r.oursNative)} | ` +
      `${fmt(r.refNative)} | ${fmt(r.oursNative / r.refNative, 2)} | ${fmt(r.oursWasm / r.refNative, 2)} |`,
  ),
];
const machine = `${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`;
console.log(`\nPco against the reference pcodec 1.0.3 (${machine}; medians of ${ROUNDS} alternating rounds)\n`);
console.log(lines.join('\n'));
console.log('\n(no large u8 / u16 / f32 Pco file exists in the corpus, and neither tool here writes Pco: those dtypes are not measured)');
mkdirSync(`${root}test-output`, { recursive: true });
writeFileSync(`${root}test-output/pco-reference.json`, JSON.stringify({ machine, rows }, null, 2));
