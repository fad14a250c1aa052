// What the wasm benchmark measures: each case decodes one corpus file through the public API.
// A format adds its cases here; `native` names the matching Google Benchmark (bench/native/).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const corpusDir = fileURLToPath(new URL('../../shared/corpus/', import.meta.url));
const read = (path) => new Uint8Array(readFileSync(corpusDir + path));

export const cases = [
  ...['bench_f64_sensor_2m.pco', 'bench_i64_timestamps_2m.pco', 'bench_u32_random_1500k.pco'].map((file) => ({
    format: 'pco',
    name: file,
    native: `pco_decode/${file}`,
    load: () => read(`pco/${file}`),
    run: (api, bytes) => api.pco.decode(bytes),
    // The decoder alone: values land in wasm memory and are not copied out to JS.
    core: (wasm, bytes) => wasm.withInputs([bytes], (ptr, len) => wasm.binding('pcoDecode')(ptr, len)),
  })),
  {
    // Many small files: per-call cost of the JS <-> wasm crossing and metadata parsing.
    format: 'pco',
    name: 'size_i32_n513.pco (small file)',
    native: 'pco_decode_small/size_i32_n513.pco',
    load: () => read('pco/size_i32_n513.pco'),
    run: (api, bytes) => api.pco.decode(bytes),
  },
];
