// `npm run bench`: native (Google Benchmark), wasm SIMD and wasm scalar (Node, public API) and a
// copy of the same output size, all measured in this one run, printed as one table.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { smallFiles } from './cases.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const nativeBench = `${root}build-native/native_bench`;

function runWasm(build) {
  const out = execFileSync(process.execPath, [`${root}bench/wasm-runner.mjs`, build], { encoding: 'utf8' });
  return JSON.parse(out);
}

// Benchmarks by name; with repetitions, each name keeps its fastest repetition (the machine is
// shared: the fastest run is the least disturbed one).
function runNative(filter, repetitions = 1) {
  if (!existsSync(nativeBench)) return {};
  const out = execFileSync(
    nativeBench,
    ['--benchmark_format=json', '--benchmark_min_time=0.3', `--benchmark_filter=${filter}`, `--benchmark_repetitions=${repetitions}`],
    { encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  const byName = {};
  for (const b of JSON.parse(out).benchmarks) {
    if (b.run_type === 'aggregate') continue;
    const name = b.run_name ?? b.name;
    if (!byName[name] || b.real_time < byName[name].real_time) byName[name] = b;
  }
  return byName;
}

// Small files take microseconds each, so their two-size difference needs the quietest runs.
// Large cases: the fastest of 3 repetitions, as the wasm side keeps its best round.
const native = { ...runNative('-pco_decode_small', 3), ...runNative('^pco_decode_small', 7) };
const simd = runWasm('simd');
const scalar = runWasm('scalar');

const mvals = (values, seconds) => values / seconds / 1e6;
const gbs = (bytes, seconds) => bytes / seconds / 1e9;
const fmt = (x, digits = 0) => (x === undefined || Number.isNaN(x) ? 'n/a' : x.toFixed(digits));

const rows = simd.results.map((s, i) => {
  const sc = scalar.results[i];
  const nb = native[s.native];
  // Google Benchmark reports values/s as a counter; memcpy of the same size is benchmarked beside it.
  let nativeRate = nb?.['values/s'] !== undefined ? nb['values/s'] / 1e6 : undefined;
  if (nativeRate === undefined && nb && s.nativeValueBytes) nativeRate = nb.bytes_per_second / s.nativeValueBytes / 1e6;
  const nativeCopy = native[s.nativeCopy];
  return {
    format: s.format,
    name: s.name,
    values: s.values,
    native: nativeRate,
    nativeCopyGBs: nativeCopy ? nativeCopy.bytes_per_second / 1e9 : undefined,
    wasmSimd: mvals(s.values, s.seconds),
    intoSimd: s.intoSeconds ? mvals(s.values, s.intoSeconds) : undefined,
    viewSimd: s.viewSeconds ? mvals(s.values, s.viewSeconds) : undefined,
    // Output bytes per second of each call path ÷ the same run's JS copy of those bytes.
    // (medians of alternating rounds, with their range: see wasm-runner.mjs)
    apiPerCopy: s.perCopy.run,
    intoPerCopy: s.perCopy.into,
    viewPerCopy: s.perCopy.view,
    // The same calls on the page read once into wasm memory (a wasmInput buffer), if measured.
    inWasmPerCopy: s.perCopy.intoInWasm && { run: s.perCopy.runInWasm, into: s.perCopy.intoInWasm, view: s.perCopy.viewInWasm },
    wasmScalar: mvals(sc.values, sc.seconds),
    coreSimd: s.coreSeconds ? mvals(s.values, s.coreSeconds) : undefined,
    coreScalar: sc.coreSeconds ? mvals(sc.values, sc.coreSeconds) : undefined,
    outBytes: s.outBytes,
    wasmSimdGBs: gbs(s.outBytes, s.seconds),
    jsCopyGBs: gbs(s.outBytes, s.copySeconds),
  };
});

// "decoder" columns: values decoded into wasm memory; "API" columns: the public call, which
// also copies the values into a new JS typed array; "decodeInto": the public call into an
// array allocated once.
const header =
  '| case | values | native Mval/s | wasm SIMD decoder | wasm scalar decoder | decoder SIMD / native | wasm SIMD decodeInto | wasm SIMD API Mval/s | wasm scalar API | API GB/s | JS copy GB/s | API / copy |';
const lines = [header, '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'];
for (const r of rows) {
  lines.push(
    `| ${r.format} ${r.name} | ${r.values} | ${fmt(r.native)} | ${fmt(r.coreSimd)} | ${fmt(r.coreScalar)} | ` +
      `${fmt(r.coreSimd / r.native, 2)} | ${fmt(r.intoSimd)} | ${fmt(r.wasmSimd)} | ${fmt(r.wasmScalar)} | ${fmt(r.wasmSimdGBs, 2)} | ` +
      `${fmt(r.jsCopyGBs, 1)} | ${fmt(r.wasmSimdGBs / r.jsCopyGBs, 3)} |`,
  );
}
// Every call path against a JS copy of the same output bytes (TypedArray.set, same run), and the
// wasm decoder against the native one. Issue 16's targets: ALP decodeInto and decodeView >= 0.5x
// the copy, ALP wasm SIMD decoder >= 0.7x native.
const pathLines = [
  '| case | output MB | JS copy GB/s | decode (new array) ÷ copy | decodeInto ÷ copy | decodeView ÷ copy | wasm SIMD decoder ÷ native (best of each) |',
  '|---|---:|---:|---:|---:|---:|---:|',
];
for (const r of rows) {
  const isAlp = r.format === 'alp';
  const mark = (x, target) => (isAlp && target !== undefined && x !== undefined && !Number.isNaN(x) ? (x >= target ? ' ✓' : ' ✗') : '');
  const ratio = (q, target) => (q ? `${fmt(q.median, 2)} (${fmt(q.min, 2)}-${fmt(q.max, 2)})${mark(q.median, target)}` : 'n/a');
  const decoderPerNative = r.coreSimd / r.native;
  pathLines.push(
    `| ${r.format} ${r.name} | ${fmt(r.outBytes / 1e6, 1)} | ${fmt(r.jsCopyGBs, 1)} | ${ratio(r.apiPerCopy)} | ` +
      `${ratio(r.intoPerCopy, 0.5)} | ${ratio(r.viewPerCopy, 0.5)} | ${fmt(decoderPerNative, 2)}${mark(decoderPerNative, 0.7)} |`,
  );
  const w = r.inWasmPerCopy;
  if (w) {
    pathLines.push(
      `| ${r.format} ${r.name}, page read into wasm memory (wasmInput) | ${fmt(r.outBytes / 1e6, 1)} | ${fmt(r.jsCopyGBs, 1)} | ${ratio(w.run)} | ` +
        `${ratio(w.into, 0.5)} | ${ratio(w.view, 0.5)} | |`,
    );
  }
}

// Small files. The per-value cost comes from the difference between the two sizes, measured on
// the call that allocates nothing (decodeInto; the native call reuses its buffer too); every
// call of that runtime decodes the same way, so its per-call overhead is its time for the
// larger file less that many values at that cost.
const perValueOf = (perFile) => {
  const [a, b] = perFile;
  return (b.microseconds - a.microseconds) / (b.n - a.n);
};
const smallRows = [];
const nativeSmall = smallFiles.files.map((f) => ({ n: f.n, microseconds: native[f.native] ? 1e6 / native[f.native]['files/s'] : NaN }));
smallRows.push({ runtime: 'native', call: 'read_standalone (C++)', perFile: nativeSmall, perValue: perValueOf(nativeSmall) });
for (const [runtime, run] of [['wasm SIMD', simd], ['wasm scalar', scalar]]) {
  const reference = run.small.find((c) => c.reusesOutput) ?? run.small[0];
  for (const c of run.small) smallRows.push({ runtime, call: c.name, perFile: c.perFile, perValue: perValueOf(reference.perFile) });
}
const smallLines = [
  `| runtime | call | ${smallFiles.files.map((f) => `µs per file of ${f.n}`).join(' | ')} | ns per value | per-call overhead µs (target < 5) |`,
  `|---|---|${smallFiles.files.map(() => '---:|').join('')}---:|---:|`,
];
for (const r of smallRows) {
  const last = r.perFile[r.perFile.length - 1];
  smallLines.push(
    `| ${r.runtime} | ${r.call} | ${r.perFile.map((f) => fmt(f.microseconds, 2)).join(' | ')} | ${fmt(1000 * r.perValue, 2)} | ${fmt(last.microseconds - last.n * r.perValue, 2)} |`,
  );
}

const commit = (() => {
  try {
    return execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
})();
const machine = `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, Node ${process.version}, load ${os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(' ')}, commit ${commit}`;
console.log(`numdecode benchmark on ${machine}\n`);
console.log(lines.join('\n'));
console.log('\nCall paths against a JS copy of the same output bytes, median (range) of 7 alternating rounds (ALP targets: into/view ≥ 0.5, decoder ≥ 0.7× native)\n');
console.log(pathLines.join('\n'));
console.log(`\nPco small files (Int32, same kind of data at two sizes)\n`);
console.log(smallLines.join('\n'));
mkdirSync(`${root}test-output`, { recursive: true });
writeFileSync(`${root}test-output/bench.json`, JSON.stringify({ machine, rows, small: smallRows }, null, 2));
writeFileSync(`${root}test-output/bench.md`, `${machine}\n\n${lines.join('\n')}\n\n${pathLines.join('\n')}\n\n${smallLines.join('\n')}\n`);
