// What the wasm benchmark measures: each case decodes one corpus file through the public API.
// A format adds its cases here; `native` names the matching Google Benchmark (bench/native/).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const corpusDir = fileURLToPath(new URL('../../shared/corpus/', import.meta.url));
const read = (path) => new Uint8Array(readFileSync(corpusDir + path));

export const cases = [
  ...['bench_f64_sensor_2m.pco', 'bench_i64_timestamps_2m.pco', 'bench_u32_random_1500k.pco'].map((file) => ({
    format: 'pco',
    name: file,
    native: `pco_decode/${file}`,
    nativeCopy: `memcpy/${file}`,
    load: () => read(`pco/${file}`),
    run: (api, bytes) => api.pco.decode(bytes),
    // The decoder alone: values land in wasm memory and are not copied out to JS.
    core: (wasm, bytes) => wasm.withInputs([bytes], (ptr, len) => wasm.binding('pcoDecode')(ptr, len, Infinity)),
  })),
  {
    // Many small files: per-call cost of the JS <-> wasm crossing and metadata parsing.
    format: 'pco',
    name: 'size_i32_n513.pco (small file)',
    native: 'pco_decode_small/size_i32_n513.pco',
    load: () => read('pco/size_i32_n513.pco'),
    run: (api, bytes) => api.pco.decode(bytes),
  },
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
  })),
  {
    // A whole BPCells matrix (d1z indices + m1 values) read through the lazy reader from a
    // source held in memory: decoding and JS glue, no I/O. Values are the nnz entries.
    format: 'bpcells',
    name: 'packed_uint_large_20000x3000 (whole read)',
    load: () => {
      const dir = `bpcells/packed_uint_large_20000x3000/matrix/`;
      return Object.fromEntries(readdirSync(corpusDir + dir).map((f) => [f, read(dir + f)]));
    },
    run: async (api, files) => {
      const source = {
        size: async (name) => files[name]?.length ?? null,
        read: async (name, start, end) => files[name].subarray(start, end),
      };
      const m = await api.bpcells.open(source);
      return (await m.read()).val;
    },
  },
];
