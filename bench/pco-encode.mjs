// Pco encoding beside decoding (`npm run bench`, or node bench/pco-encode.mjs): per dtype, values/s
// of pco.encode (the wasm SIMD encoder module, automatic choices at level 8, a standalone file)
// and of decoding what it wrote (pco.decodeView, values left in wasm memory: the decoder alone),
// best of a few rounds each, and the file's size beside the reference's where the corpus has one.
// Cases: the corpus's three large files (their values, the reference's chunking) and one
// synthetic million-value array per dtype.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { init, pco } from '../js/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const corpus = fileURLToPath(new URL('../../shared/corpus/pco/', import.meta.url));
const ROUNDS = 5;
const N = 1 << 20;

await init({ formats: ['pco', 'pco-encode'] });

// A smooth signal with noise, quantized as each dtype stores such data (f16 as its bits).
function synthetic(dtype) {
  const x = new Float64Array(N);
  let seed = 1;
  const noise = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5);
  for (let i = 0; i < N; i++) x[i] = Math.sin(i / 5000) * 0.8 + noise() * 0.05;
  const ints = { u8: [Uint8Array, 100, 120], i8: [Int8Array, 100, 0], u16: [Uint16Array, 2e4, 3e4], i16: [Int16Array, 2e4, 0], u32: [Uint32Array, 1e8, 2e9], i32: [Int32Array, 1e8, 0] };
  if (ints[dtype]) {
    const [Type, scale, offset] = ints[dtype];
    return Type.from(x, (v) => Math.round(v * scale + offset));
  }
  if (dtype === 'u64') return BigUint64Array.from(x, (v) => BigInt(Math.round(v * 1e12 + 1e13)));
  if (dtype === 'i64') return BigInt64Array.from(x, (v) => BigInt(Math.round(v * 1e12)));
  if (dtype === 'f32') return Float32Array.from(x, (v) => Math.round(v * 1e4) / 1e4);
  if (dtype === 'f64') return Float64Array.from(x, (v) => Math.round(v * 1e6) / 1e6);
  // f16: the nearest half-precision bits of values in [-1, 1] (exact in f32, rounded by the module's own f16 path).
  const f32 = Float32Array.from(x);
  const bits = new Uint16Array(N);
  const u32 = new Uint32Array(f32.buffer);
  for (let i = 0; i < N; i++) bits[i] = ((u32[i] >>> 16) & 0x8000) | ((((u32[i] >>> 23) & 0xff) - 112) << 10) | ((u32[i] >>> 13) & 0x3ff);
  return bits;
}

function best(fn) {
  let fastest = Infinity;
  let result;
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.hrtime.bigint();
    result = fn();
    fastest = Math.min(fastest, Number(process.hrtime.bigint() - start) / 1e9);
    if (result instanceof Promise) throw new Error('time async work with bestAsync');
  }
  return { seconds: fastest, result };
}

async function bestAsync(fn) {
  let fastest = Infinity;
  let result;
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.hrtime.bigint();
    result = await fn();
    fastest = Math.min(fastest, Number(process.hrtime.bigint() - start) / 1e9);
  }
  return { seconds: fastest, result };
}

const cases = [
  ...['bench_f64_sensor_2m', 'bench_i64_timestamps_2m', 'bench_u32_random_1500k'].map((name) => {
    const ref = new Uint8Array(readFileSync(`${corpus}${name}.pco`));
    const info = pco.inspect(ref);
    return { name, dtype: info.chunks[0].dtype, values: pco.decode(ref), options: { chunkSizes: info.chunks.map((c) => c.n) }, reference: ref.length };
  }),
  ...['u8', 'i8', 'u16', 'i16', 'f16', 'u32', 'i32', 'f32', 'u64', 'i64', 'f64'].map((dtype) => ({
    name: `synthetic ${dtype}`,
    dtype,
    values: synthetic(dtype),
    options: dtype === 'f16' ? { dtype } : {},
  })),
];

const rows = [];
for (const c of cases) {
  const encoded = await bestAsync(() => pco.encode(c.values, c.options));
  const file = encoded.result;
  const decoded = best(() => {
    const view = pco.decodeView(file);
    view.release();
    return view.length;
  });
  const n = c.values.length;
  rows.push({
    name: c.name,
    dtype: c.dtype,
    values: n,
    bytes: file.length,
    reference: c.reference,
    encode: n / encoded.seconds / 1e6,
    decode: n / decoded.seconds / 1e6,
  });
}

const fmt = (x, digits = 1) => (x === undefined ? 'n/a' : x.toFixed(digits));
const lines = [
  '| case | dtype | values | bytes | ÷ reference | encode Mval/s | decode Mval/s | encode ÷ decode |',
  '|---|---|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.name} | ${r.dtype} | ${r.values} | ${r.bytes} | ${r.reference ? (r.bytes / r.reference).toFixed(4) : 'n/a'} | ${fmt(r.encode)} | ${fmt(r.decode, 0)} | ${fmt(r.encode / r.decode, 3)} |`,
  ),
];
const machine = `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, Node ${process.version}, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`;
console.log(`\nPco encode beside decode (wasm SIMD; best of ${ROUNDS}; automatic mode and delta, level 8) on ${machine}\n`);
console.log(lines.join('\n'));
mkdirSync(`${root}test-output`, { recursive: true });
writeFileSync(`${root}test-output/bench-pco-encode.json`, JSON.stringify({ machine, rows }, null, 2));
