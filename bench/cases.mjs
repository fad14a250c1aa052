// What the wasm benchmark measures: each case decodes one corpus file through the public API.
// A format adds its cases here; `native` names the matching Google Benchmark (bench/native/).
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const corpusDir = fileURLToPath(new URL('../../shared/corpus/', import.meta.url));
const read = (path) => new Uint8Array(readFileSync(corpusDir + path));

// The page written once into wasm memory, as an application reading a file would: read straight
// into a wasmInput() buffer (no JS copy, and the decoders read it where it lies).
function readIntoWasm(api, path) {
  const fd = openSync(corpusDir + path, 'r');
  try {
    const size = fstatSync(fd).size;
    const input = api.wasmInput('alp', size);
    for (let at = 0; at < size; ) {
      const n = readSync(fd, input.bytes, at, size - at, at);
      if (n === 0) throw new Error(`${path}: file ended at byte ${at} of ${size}`);
      at += n;
    }
    return input;
  } finally {
    closeSync(fd);
  }
}

// Per page: its copy in wasm memory and an output buffer, made on the first call.
const alpInWasm = new WeakMap();
function alpDecoderAlone(wasm, bytes, dtype) {
  const mod = wasm.getModule('alp');
  const f32 = dtype === 'f32' ? 1 : 0;
  let at = alpInWasm.get(bytes);
  if (at === undefined) {
    const page = mod._malloc(bytes.length);
    mod.HEAPU8.set(bytes, page);
    const n = mod._numdecode_alp_size(page, bytes.length, f32);
    at = { page, n, out: mod._malloc(n * (f32 ? 4 : 8)) };
    alpInWasm.set(bytes, at);
  }
  mod._numdecode_alp_decode_to(at.page, bytes.length, f32, 0, at.n, at.out);
}

export const cases = [
  ...['bench_f64_sensor_2m.pco', 'bench_i64_timestamps_2m.pco', 'bench_u32_random_1500k.pco'].map((file) => ({
    format: 'pco',
    name: file,
    native: `pco_decode/${file}`,
    nativeCopy: `memcpy/${file}`,
    load: () => read(`pco/${file}`),
    run: (api, bytes) => api.pco.decode(bytes),
    // The public API into an array allocated once (out: what run() returned).
    into: (api, bytes, out) => api.pco.decodeInto(bytes, out),
    // The public API leaving the values in wasm memory.
    view: (api, bytes) => api.pco.decodeView(bytes).release(),
    // The decoder alone: values land in wasm memory and are not copied out to JS.
    core: (wasm, bytes) => wasm.withInputs('pco', [bytes], (ptr, len) => wasm.getModule('pco')._numdecode_pco_decode(ptr, len, Infinity, 0)),
  })),
  ...[
    ['f32', 'f32_bench_price2_n4194304.alp', 'BM_DecodeF32/price2_simd', 'BM_MemcpyF32/price2_output_size'],
    ['f64', 'f64_bench_sensor3_n2097152.alp', 'BM_DecodeF64/sensor3_simd', 'BM_MemcpyF64/sensor3_output_size'],
  ].map(([dtype, file, native, nativeCopy]) => ({
    format: 'alp',
    name: file,
    native,
    nativeCopy,
    load: () => read(`alp/${file}`),
    run: (api, bytes) => api.alp.decode(bytes, dtype),
    into: (api, bytes, out) => api.alp.decodeInto(bytes, out),
    view: (api, bytes) => api.alp.decodeView(bytes, dtype).release(),
    // The same calls on the page read once into wasm memory (input: what load() returned).
    inWasm: {
      load: (api) => readIntoWasm(api, `alp/${file}`),
      run: (api, input) => api.alp.decode(input.bytes, dtype),
      into: (api, input, out) => api.alp.decodeInto(input.bytes, out),
      view: (api, input) => api.alp.decodeView(input.bytes, dtype).release(),
    },
    // The decoder alone, as the native benchmark runs it: the page copied into wasm memory once,
    // the values decoded into a buffer allocated once.
    core: (wasm, bytes) => alpDecoderAlone(wasm, bytes, dtype),
  })),
  // BPCells: bench/bpcells-read.mjs (whole-matrix reads of the local directory and the BP-128
  // kernels, each beside its reference).
];

// Small files: the per-call cost (JS <-> wasm crossing, header and metadata parsing, output
// array). Two sizes of the same kind of file give the per-value cost by difference (on the
// call marked reusesOutput, which allocates nothing); the rest of a call's time is overhead.
const smallOut = new Int32Array(1024);
export const smallFiles = {
  files: [
    { n: 255, native: 'pco_decode_small/size_i32_n255.pco', load: () => read('pco/size_i32_n255.pco') },
    { n: 513, native: 'pco_decode_small/size_i32_n513.pco', load: () => read('pco/size_i32_n513.pco') },
  ],
  calls: [
    { name: 'pco.decode (new array per call)', run: (api, bytes) => api.pco.decode(bytes) },
    { name: 'pco.decodeInto (one array reused)', reusesOutput: true, run: (api, bytes) => api.pco.decodeInto(bytes, smallOut) },
  ],
};
