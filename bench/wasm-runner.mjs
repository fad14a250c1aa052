// Times every case of bench/cases.mjs through the public API in one wasm build, plus a copy
// of the same output size in the same runtime. Prints JSON. Usage: node wasm-runner.mjs simd|scalar
import { cases } from './cases.mjs';
import * as api from '../js/index.js';
import * as wasm from '../js/wasm.js';

const simd = process.argv[2] === 'simd';
await api.init({ simd });

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
  const src = new Uint8Array(outBytes).fill(1);
  const dst = new Uint8Array(outBytes);
  const copySeconds = await time(() => dst.set(src));
  results.push({ format: c.format, name: c.name, native: c.native, nativeCopy: c.nativeCopy, values, outBytes, seconds, coreSeconds, copySeconds });
}
console.log(JSON.stringify({ simd, results }));
