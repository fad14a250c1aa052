// Times every case of bench/cases.mjs through the public API in one wasm build, plus a copy
// of the same output size in the same runtime. Prints JSON. Usage: node wasm-runner.mjs simd|scalar
import { cases, smallFiles } from './cases.mjs';
import * as index from '../js/index.js';

const api = { ...index };
import * as wasm from '../js/wasm.js';

const simd = process.argv[2] === 'simd';
await index.init({ simd });
// Best of several rounds of at least `minSeconds` each: the machine is shared and noisy.
async function time(fn, minSeconds = 0.3, rounds = 5) {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    let iterations = 0;
    const start = process.hrtime.bigint();
    let elapsed = 0;
    do {
      await fn();
      iterations++;
      elapsed = Number(process.hrtime.bigint() - start) / 1e9;
    } while (elapsed < minSeconds);
    best = Math.min(best, elapsed / iterations);
  }
  return best;
}

const results = [];
for (const c of cases) {
  const bytes = c.load();
  const out = await c.run(api, bytes);
  const values = out.length;
  const outBytes = out.byteLength;
  const seconds = await time(() => c.run(api, bytes));
  const coreSeconds = c.core ? await time(() => c.core(wasm, bytes)) : undefined;
  const intoSeconds = c.into ? await time(() => c.into(api, bytes, out)) : undefined;
  const viewSeconds = c.view ? await time(() => c.view(api, bytes)) : undefined;
  const src = new Uint8Array(outBytes).fill(1);
  const dst = new Uint8Array(outBytes);
  const copySeconds = await time(() => dst.set(src));
  results.push({ format: c.format, name: c.name, native: c.native, nativeCopy: c.nativeCopy, nativeValueBytes: c.nativeValueBytes, values, outBytes, seconds, coreSeconds, intoSeconds, viewSeconds, copySeconds });
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
