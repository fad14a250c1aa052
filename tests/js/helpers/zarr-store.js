// Builds a Zarr store on disk whose chunks are corpus Pco files (numcodecs' pcodec writes each
// chunk as one standalone Pco file), with v2 and v3 metadata as zarr-python + numcodecs write it,
// and computes every array's expected contents from the corpus .bin files.
// Used by the Node test (zarr.test.js) and the headless Chromium test (zarr-browser.test.js).
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { concatBytes, expectSameBytes, pcoDir, readBytes } from './corpus.js';
import { crc32c } from '../../../js/zarr/crc32c.js'; // (as zarr-python appends to shard indexes; checked against the CRC-32C check value in shard-index.test.js)
export { crc32c }; // the CLI tests damage shard indexes with it

// The configuration numcodecs writes for pcodec (numcodecs >= 0.13 adds delta_spec and paging_spec).
export const NUMCODECS_CONFIG = {
  level: 8,
  mode_spec: 'auto',
  delta_spec: 'auto',
  paging_spec: 'equal_pages_up_to',
  delta_encoding_order: null,
  equal_pages_up_to: 262144,
};
// An older numcodecs (0.12) writes only these.
const OLD_NUMCODECS_CONFIG = { level: 8, delta_encoding_order: null, equal_pages_up_to: 262144, mode_spec: 'auto' };

const BYTES_PER = { int8: 1, uint8: 1, int16: 2, uint16: 2, float16: 2, int32: 4, uint32: 4, float32: 4, int64: 8, uint64: 8, float64: 8 };
const CLASSIC = { uint8: 'u8', int8: 'i8', uint16: 'u16', int16: 'i16', float16: 'f16', uint32: 'u32', int32: 'i32', float32: 'f32', uint64: 'u64', int64: 'i64', float64: 'f64' };

const pcoFile = (name) => path.join(pcoDir, `${name}.pco`);
const bin = (name) => readBytes(pcoDir, `${name}.bin`);

function writeJson(file, value) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value, null, 2));
}

function putChunk(file, corpusName) {
  mkdirSync(path.dirname(file), { recursive: true });
  copyFileSync(pcoFile(corpusName), file);
}

function v3Meta({ shape, dataType, chunkShape, codecs, fillValue = 0 }) {
  return {
    zarr_format: 3,
    node_type: 'array',
    shape,
    data_type: dataType,
    chunk_grid: { name: 'regular', configuration: { chunk_shape: chunkShape } },
    chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
    fill_value: fillValue,
    codecs,
    attributes: {},
    storage_transformers: [],
  };
}

function v2Meta({ shape, dtype, chunks, order = 'C', fillValue = 0, compressor = { id: 'pcodec', ...NUMCODECS_CONFIG } }) {
  return { zarr_format: 2, shape, chunks, dtype, compressor, fill_value: fillValue, order, filters: null };
}

// One shard: the inner chunks back to back, then the index ((offset, nbytes) u64 pairs) and its CRC-32C.
function shardBytes(chunks) {
  const index = new DataView(new ArrayBuffer(16 * chunks.length + 4));
  let offset = 0;
  chunks.forEach((c, i) => {
    index.setBigUint64(16 * i, BigInt(offset), true);
    index.setBigUint64(16 * i + 8, BigInt(c.byteLength), true);
    offset += c.byteLength;
  });
  const indexBytes = new Uint8Array(index.buffer);
  index.setUint32(16 * chunks.length, crc32c(indexBytes.subarray(0, 16 * chunks.length)), true);
  return concatBytes([...chunks, indexBytes]);
}

function fill(dataType, value, n) {
  const Type = { float64: Float64Array, float32: Float32Array, int32: Int32Array }[dataType];
  return new Uint8Array(new Type(n).fill(value).buffer);
}

/**
 * Writes the store under dir. Returns {arrays, failures}:
 * arrays: [{path, zarrFormat, dataType, shape, expected: Uint8Array (whole array, C order)}]
 * failures: [{path, message: string the read error must contain}]
 * Also writes dir/cases.json (paths, formats, data types, shapes) for the browser page.
 */
export function buildStore(dir) {
  const arrays = [];
  const failures = [];

  // v3, int64, 2-D, 7 chunks (the last one partly outside the array), numcodecs.pcodec.
  {
    const p = 'v3/consec_i64';
    const names = [1, 2, 3, 4, 5, 6, 7].map((k) => `consec${k}_i64`);
    const shape = [200, 100];
    const codecs = [{ name: 'numcodecs.pcodec', configuration: NUMCODECS_CONFIG }];
    writeJson(path.join(dir, p, 'zarr.json'), v3Meta({ shape, dataType: 'int64', chunkShape: [30, 100], codecs }));
    names.forEach((name, k) => putChunk(path.join(dir, p, 'c', String(k), '0'), name));
    // Chunks span whole rows, so the array in C order is the chunks' values back to back.
    const expected = concatBytes(names.map(bin)).subarray(0, 200 * 100 * 8);
    arrays.push({ path: p, zarrFormat: 3, dataType: 'int64', shape, expected });
  }

  // v3, one array per dtype, the newer codec name "pcodec".
  for (const [dataType, dtype] of Object.entries(CLASSIC)) {
    const p = `v3/classic_${dtype}`;
    const name = `classic_${dtype}_n1000`;
    const codecs = [{ name: 'pcodec', configuration: { level: 8 } }];
    writeJson(path.join(dir, p, 'zarr.json'), v3Meta({ shape: [1000], dataType, chunkShape: [1000], codecs }));
    putChunk(path.join(dir, p, 'c', '0'), name);
    arrays.push({ path: p, zarrFormat: 3, dataType, shape: [1000], expected: bin(name) });
  }

  // v3, a chunk that is a Pco file of several Pco chunks (pcodec splits large chunks).
  {
    const p = 'v3/multichunk_i32';
    const codecs = [{ name: 'numcodecs.pcodec', configuration: NUMCODECS_CONFIG }];
    writeJson(path.join(dir, p, 'zarr.json'), v3Meta({ shape: [3500], dataType: 'int32', chunkShape: [3500], codecs }));
    putChunk(path.join(dir, p, 'c', '0'), 'multichunk_i32_4chunks');
    arrays.push({ path: p, zarrFormat: 3, dataType: 'int32', shape: [3500], expected: bin('multichunk_i32_4chunks') });
  }

  // v3, sharded: one shard of two inner pcodec chunks, read by HTTP range requests.
  {
    const p = 'v3/sharded_f32';
    const names = ['special_f32_auto', 'consec2_f32'];
    const codecs = [
      {
        name: 'sharding_indexed',
        configuration: {
          chunk_shape: [3000],
          codecs: [{ name: 'numcodecs.pcodec', configuration: NUMCODECS_CONFIG }],
          index_codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'crc32c' }],
          index_location: 'end',
        },
      },
    ];
    writeJson(path.join(dir, p, 'zarr.json'), v3Meta({ shape: [6000], dataType: 'float32', chunkShape: [6000], codecs }));
    mkdirSync(path.join(dir, p, 'c'), { recursive: true });
    writeFileSync(path.join(dir, p, 'c', '0'), shardBytes(names.map((n) => readBytes(pcoDir, `${n}.pco`))));
    arrays.push({ path: p, zarrFormat: 3, dataType: 'float32', shape: [6000], expected: concatBytes(names.map(bin)) });
  }

  // v2, float64, 3 rows of which the last has no chunk (fill value), compressor pcodec.
  {
    const p = 'v2/f64_rows';
    writeJson(path.join(dir, p, '.zarray'), v2Meta({ shape: [3, 1000], dtype: '<f8', chunks: [1, 1000], fillValue: 42.5 }));
    putChunk(path.join(dir, p, '0.0'), 'classic_f64_n1000');
    putChunk(path.join(dir, p, '1.0'), 'const_f64_n1000');
    const expected = concatBytes([bin('classic_f64_n1000'), bin('const_f64_n1000'), fill('float64', 42.5, 1000)]);
    arrays.push({ path: p, zarrFormat: 2, dataType: 'float64', shape: [3, 1000], expected });
  }

  // v2, int32, Fortran order: the chunk's values are column-major; the old numcodecs config.
  {
    const p = 'v2/i32_fortran';
    const compressor = { id: 'pcodec', ...OLD_NUMCODECS_CONFIG };
    writeJson(path.join(dir, p, '.zarray'), v2Meta({ shape: [50, 100], dtype: '<i4', chunks: [50, 100], order: 'F', compressor }));
    putChunk(path.join(dir, p, '0.0'), 'intmult_i32_mult7');
    const columnMajor = new Int32Array(bin('intmult_i32_mult7').buffer);
    const rowMajor = new Int32Array(5000);
    for (let i = 0; i < 50; i++) for (let j = 0; j < 100; j++) rowMajor[i * 100 + j] = columnMajor[j * 50 + i];
    arrays.push({ path: p, zarrFormat: 2, dataType: 'int32', shape: [50, 100], expected: new Uint8Array(rowMajor.buffer) });
  }

  // v2, uint16, "/" dimension separator, two chunks of 5000 values.
  {
    const p = 'v2/u16_nested';
    writeJson(path.join(dir, p, '.zarray'), { ...v2Meta({ shape: [10000], dtype: '<u2', chunks: [5000] }), dimension_separator: '/' });
    putChunk(path.join(dir, p, '0'), 'two_values_u16');
    putChunk(path.join(dir, p, '1'), 'two_values_u16');
    const expected = concatBytes([bin('two_values_u16'), bin('two_values_u16')]);
    arrays.push({ path: p, zarrFormat: 2, dataType: 'uint16', shape: [10000], expected });
  }

  // Chunks that do not match their metadata must fail with a message that says so.
  {
    const p = 'v3/wrong_dtype';
    const codecs = [{ name: 'numcodecs.pcodec', configuration: NUMCODECS_CONFIG }];
    writeJson(path.join(dir, p, 'zarr.json'), v3Meta({ shape: [1000], dataType: 'float64', chunkShape: [1000], codecs }));
    putChunk(path.join(dir, p, 'c', '0'), 'classic_i64_n1000');
    failures.push({ path: p, message: "the chunk holds i64 values but the array's data type is float64" });
  }
  {
    const p = 'v3/wrong_count';
    const codecs = [{ name: 'numcodecs.pcodec', configuration: NUMCODECS_CONFIG }];
    writeJson(path.join(dir, p, 'zarr.json'), v3Meta({ shape: [999], dataType: 'float64', chunkShape: [999], codecs }));
    putChunk(path.join(dir, p, 'c', '0'), 'classic_f64_n1000');
    failures.push({ path: p, message: 'the chunk holds more than the 999 values its shape [999] allows (output limit' });
  }
  {
    const p = 'v3/too_few';
    const codecs = [{ name: 'numcodecs.pcodec', configuration: NUMCODECS_CONFIG }];
    writeJson(path.join(dir, p, 'zarr.json'), v3Meta({ shape: [1001], dataType: 'float64', chunkShape: [1001], codecs }));
    putChunk(path.join(dir, p, 'c', '0'), 'classic_f64_n1000');
    failures.push({ path: p, message: 'the chunk holds 1000 values but its shape [1001] needs 1001' });
  }
  {
    // A small Pco file of 10000 equal values where the chunk needs 1000: the codec stops decoding
    // at the chunk size (its output cap) instead of decoding everything and then refusing.
    const p = 'v3/bomb';
    const codecs = [{ name: 'numcodecs.pcodec', configuration: NUMCODECS_CONFIG }];
    writeJson(path.join(dir, p, 'zarr.json'), v3Meta({ shape: [1000], dataType: 'int32', chunkShape: [1000], codecs }));
    putChunk(path.join(dir, p, 'c', '0'), 'const_i32_n10000');
    failures.push({ path: p, message: 'the chunk holds more than the 1000 values its shape [1000] allows' });
  }
  {
    const p = 'v2/damaged';
    writeJson(path.join(dir, p, '.zarray'), v2Meta({ shape: [1000], dtype: '<f8', chunks: [1000] }));
    const damaged = readBytes(pcoDir, 'classic_f64_n1000.pco').subarray(0, 40);
    mkdirSync(path.join(dir, p), { recursive: true });
    writeFileSync(path.join(dir, p, '0'), damaged);
    failures.push({ path: p, message: 'numcodecs.pcodec' });
  }
  {
    const p = 'v2/big_endian';
    writeJson(path.join(dir, p, '.zarray'), v2Meta({ shape: [1000], dtype: '>f8', chunks: [1000] }));
    putChunk(path.join(dir, p, '0'), 'classic_f64_n1000');
    failures.push({ path: p, message: 'big-endian data types are not supported' });
  }

  for (const a of arrays) {
    const n = a.shape.reduce((x, y) => x * y, 1);
    if (a.expected.byteLength !== n * BYTES_PER[a.dataType]) throw new Error(`store builder: ${a.path} expected size is wrong`);
  }
  writeJson(path.join(dir, 'cases.json'), {
    arrays: arrays.map(({ path: p, zarrFormat, dataType, shape }) => ({ path: p, zarrFormat, dataType, shape })),
    failures,
  });
  return { arrays, failures };
}

// zarrita copies chunk values into its output element by element; a float read into a JS number
// and written back comes out with a signaling NaN made quiet (the engine sets the quiet bit). The
// codec's own output is bit-exact (zarr.test.js checks); so through zarrita each value must be
// bit-identical, except a signaling NaN that may arrive with exactly its quiet bit set.
const FLOAT_BITS = {
  float16: { Words: Uint16Array, exp: 0x7c00, frac: 0x03ff, quiet: 0x0200 },
  float32: { Words: Uint32Array, exp: 0x7f800000, frac: 0x007fffff, quiet: 0x00400000 },
  float64: { Words: BigUint64Array, exp: 0x7ff0000000000000n, frac: 0x000fffffffffffffn, quiet: 0x0008000000000000n },
};

export function expectSameValues(got, want, dataType, what) {
  const bits = FLOAT_BITS[dataType];
  if (!bits || got.byteLength !== want.byteLength) return expectSameBytes(got, want, what);
  const g = new bits.Words(got.slice().buffer);
  const w = new bits.Words(want.slice().buffer);
  let quieted = 0;
  for (let i = 0; i < w.length; i++) {
    if (g[i] === w[i]) continue;
    const zero = typeof w[i] === 'bigint' ? 0n : 0;
    // Numbers: the & of two uint32 words can be negative in JS; >>> 0 keeps them unsigned.
    const and = (a, b) => (typeof a === 'bigint' ? a & b : (a & b) >>> 0);
    const signaling = and(w[i], bits.exp) === bits.exp && and(w[i], bits.frac) !== zero && and(w[i], bits.quiet) === zero;
    const quietedBits = typeof w[i] === 'bigint' ? w[i] | bits.quiet : (w[i] | bits.quiet) >>> 0;
    if (signaling && g[i] === quietedBits) {
      quieted++;
      continue;
    }
    throw new Error(`${what}: value ${i} differs (got bits ${g[i].toString(16)}, want ${w[i].toString(16)})`);
  }
  return quieted;
}

