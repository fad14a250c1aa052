// Times every case of bench/cases.mjs through the public API in one wasm build, plus a copy
// of the same output size in the same runtime. Prints JSON. Usage: node wasm-runner.mjs simd|scalar
import { cases, smallFiles } from './cases.mjs';
import * as index from '../js/index.js';

const api = { ...index };
import { withInputs } from '../js/wasm/inputs.js';
import { getModule } from '../js/wasm/load.js';

// What the cases' `core` timings call: the module and its input copy, below the public API.
const wasm = { getModule, withInputs };

const simd = process.argv[2] === 'simd';
await index.init({ simd });
// One timing of fn in seconds: the mean of as many calls as fit in minSeconds.
async function timeOnce(fn, minSeconds) {
  let iterations = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  do {
    await fn();
    iterations++;
    elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  } while (elapsed < minSeconds);
  return elapsed / iterations;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ROUNDS = 7;

// A case's call paths and a JS copy of the same output bytes, timed in alternating rounds: each
// path's time is its best round; its ratio to the copy is the median of the rounds' ratios
// (with their range), so that a slower spell of the shared host hits both sides of a ratio.
// NUMDECODE_BENCH_FORMAT=alp times one format's cases only (quick checks while working on it).
const only = process.env.NUMDECODE_BENCH_FORMAT;
const results = [];
for (const c of cases.filter((x) => !only || x.format === only)) {
  const bytes = c.load();
  const out = await c.run(api, bytes);
  const values = out.length;
  const outBytes = out.byteLength;
  const src = new Uint8Array(outBytes).fill(1);
  const dst = new Uint8Array(outBytes);
  const paths = {
    copy: () => dst.set(src),
    run: () => c.run(api, bytes),
    ...(c.core && { core: () => c.core(wasm, bytes) }),
    ...(c.into && { into: () => c.into(api, bytes, out) }),
    ...(c.view && { view: () => c.view(api, bytes) }),
  };
  // The page read once into wasm memory (wasmInput): the same calls, in the same rounds.
  const input = c.inWasm?.load(api);
  if (input) {
    paths.runInWasm = () => c.inWasm.run(api, input);
    paths.intoInWasm = () => c.inWasm.into(api, input, out);
    paths.viewInWasm = () => c.inWasm.view(api, input);
  }
  const times = Object.fromEntries(Object.keys(paths).map((k) => [k, []]));
  for (let r = 0; r < ROUNDS; r++) for (const [k, fn] of Object.entries(paths)) times[k].push(await timeOnce(fn, 0.15));
  const best = (k) => (times[k] ? Math.min(...times[k]) : undefined);
  const perCopy = {};
  for (const k of ['run', 'into', 'view', 'runInWasm', 'intoInWasm', 'viewInWasm']) {
    if (!times[k]) continue;
    const ratios = times[k].map((t, r) => times.copy[r] / t);
    perCopy[k] = { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
  }
  input?.release();
  results.push({
    format: c.format, name: c.name, native: c.native, nativeCopy: c.nativeCopy, nativeValueBytes: c.nativeValueBytes, values, outBytes,
    seconds: best('run'), coreSeconds: best('core'), intoSeconds: best('into'), viewSeconds: best('view'), copySeconds: best('copy'), perCopy,
  });
}
// Per-call times of small files in microseconds, per call style and file size. Timed in a
// synchronous loop (awaiting each call would add a microtask turn to every call), the sizes
// in alternating rounds so that a slower spell of the shared machine hits both alike; the
// best round of each counts.
function timeRound(fn, seconds) {
  let iterations = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  do {
    for (let i = 0; i < 1000; i++) fn();
    iterations += 1000;
    elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  } while (elapsed < seconds);
  return elapsed / iterations;
}

const small = smallFiles.calls.map((call) => {
  const runs = smallFiles.files.map((f) => {
    const bytes = f.load();
    return () => call.run(api, bytes);
  });
  const best = runs.map(() => Infinity);
  for (let round = 0; round < 9; round++) runs.forEach((run, i) => (best[i] = Math.min(best[i], timeRound(run, 0.15))));
  const perFile = smallFiles.files.map((f, i) => ({ n: f.n, microseconds: 1e6 * best[i] }));
  return { name: call.name, reusesOutput: call.reusesOutput === true, perFile };
});
console.log(JSON.stringify({ simd, results, small }));
