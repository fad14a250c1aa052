// zarr.set with numdecode's pcodec codec: chunks written as numcodecs.PCodec writes them (one
// standalone Pco file per chunk, configured by the codec's configuration), read back exactly by
// zarrita and by pcodec's own decoder (ref_pco.wasm).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as zarr from 'zarrita';
import { CODES, PcoError, init, pco } from '../../../js/index.js';
import { createWorkerPool } from '../../../js/worker/index.js';
import { registerPcodec } from '../../../js/zarr.js';
import { bytesOf, corpusRoot } from '../helpers/corpus.js';
import { NUMCODECS_CONFIG } from '../helpers/zarr-store.js';

const REF_WASM = path.resolve(corpusRoot, '../tools/pcodec-ref/ref_pco.wasm');
const REF_DTYPE = { u32: 1, u64: 2, i32: 3, i64: 4, f32: 5, f64: 6, u16: 7, i16: 8, f16: 9, u8: 10, i8: 11 };

let reference = null;

beforeAll(async () => {
  await init({ formats: ['pco'] });
  registerPcodec(zarr.registry);
  if (existsSync(REF_WASM)) reference = (await WebAssembly.instantiate(readFileSync(REF_WASM), {})).instance.exports;
});

// The reference's decode of one chunk file: the values' bytes.
function referenceDecode(file, dtype, n, width) {
  const e = reference;
  const src = e.ref_alloc(file.length);
  new Uint8Array(e.memory.buffer, src, file.length).set(file);
  const dst = (e.ref_alloc(n * width + 8) + 7) & ~7;
  expect(Number(e.ref_decode(REF_DTYPE[dtype], src, file.length, dst, n))).toBe(n);
  return new Uint8Array(e.memory.buffer, dst, n * width).slice();
}

// An array of shape [rows, cols] in chunks [cr, cc], written with zarr.set into a Map store.
async function written(data, { shape, chunkShape, dtype, configuration = NUMCODECS_CONFIG, name = 'numcodecs.pcodec' }) {
  const store = new Map();
  const arr = await zarr.create(zarr.root(store).resolve('a'), { shape, chunkShape, dtype, codecs: [{ name, configuration }], fillValue: 0 });
  await zarr.set(arr, null, { data, shape, stride: [shape[1], 1] });
  return { store, arr: await zarr.open(zarr.root(store).resolve('a'), { kind: 'array' }) };
}

// Chunk [i, j] of data as zarrita passes it to the codec: C order, edge chunks padded.
function chunkOf(data, shape, chunkShape, i, j) {
  const out = new data.constructor(chunkShape[0] * chunkShape[1]);
  for (let r = 0; r < chunkShape[0]; r++) {
    for (let c = 0; c < chunkShape[1]; c++) {
      const row = i * chunkShape[0] + r;
      const col = j * chunkShape[1] + c;
      if (row < shape[0] && col < shape[1]) out[r * chunkShape[1] + c] = data[row * shape[1] + col];
    }
  }
  return out;
}

describe('zarr.set writes pcodec chunks that zarrita and the reference read back exactly', () => {
  const shape = [70, 33];
  const chunkShape = [32, 16];
  const n = shape[0] * shape[1];
  test.each([
    ['int32', 'i32', Int32Array.from({ length: n }, (_, i) => (i % 33) * 1000 - 7 * Math.floor(i / 33))],
    ['float64', 'f64', Float64Array.from({ length: n }, (_, i) => Math.round(Math.sin(i / 50) * 1e4) / 100)],
    ['uint16', 'u16', Uint16Array.from({ length: n }, (_, i) => (i * 7919) % 65536)],
    ['int64', 'i64', BigInt64Array.from({ length: n }, (_, i) => 1700000000000n + BigInt(i) * 1000n)],
    ['float32', 'f32', Float32Array.from({ length: n }, (_, i) => (i % 11 === 0 ? NaN : i / 3))],
  ])('%s', async (dataType, dtype, data) => {
    const { store, arr } = await written(data, { shape, chunkShape, dtype: dataType });
    const got = await zarr.get(arr, null);
    expect(Buffer.from(bytesOf(got.data)).equals(Buffer.from(bytesOf(data)))).toBe(true);
    expect(reference).not.toBeNull();
    const width = data.BYTES_PER_ELEMENT;
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) {
        const file = store.get(`/a/c/${i}/${j}`);
        expect(pco.inspect(file).uniformDtype).toBe(dtype);
        const want = bytesOf(chunkOf(data, shape, chunkShape, i, j));
        const fromReference = referenceDecode(file, dtype, chunkShape[0] * chunkShape[1], width);
        expect(Buffer.from(fromReference).equals(Buffer.from(want))).toBe(true);
      }
    }
  });
});

describe("the codec's configuration steers the encoder", () => {
  const shape = [40, 50];
  const data = Int32Array.from({ length: 2000 }, (_, i) => i * 3);
  const firstChunk = async (configuration, name) => {
    const { store } = await written(data, { shape, chunkShape: [40, 50], dtype: 'int32', configuration, name });
    return pco.inspect(store.get('/a/c/0/0'));
  };

  test('delta_spec try_consecutive with its order, mode_spec classic', async () => {
    const info = await firstChunk({ ...NUMCODECS_CONFIG, mode_spec: 'classic', delta_spec: 'try_consecutive', delta_encoding_order: 2 });
    expect(info.chunks[0].mode.name).toBe('Classic');
    expect(info.chunks[0].delta).toMatchObject({ name: 'Consecutive', order: 2 });
  });

  test('delta_spec none; equal_pages_up_to splits the file into Pco chunks; the name "pcodec"', async () => {
    const info = await firstChunk({ ...NUMCODECS_CONFIG, delta_spec: 'none', equal_pages_up_to: 600 }, 'pcodec');
    expect(info.chunks.map((c) => c.n)).toEqual([500, 500, 500, 500]);
    expect(info.chunks.every((c) => c.delta.name === 'None')).toBe(true);
  });

  test("numcodecs 0.12's configuration (no delta_spec) and an empty one", async () => {
    const old = await firstChunk({ level: 8, delta_encoding_order: 1, equal_pages_up_to: 262144, mode_spec: 'auto' });
    expect(old.chunks[0].delta).toMatchObject({ name: 'Consecutive', order: 1 });
    expect((await firstChunk({})).chunks[0].n).toBe(2000);
  });

  test('a spec this encoder does not know is refused with ERR_UNSUPPORTED', async () => {
    // zarrita wraps a codec's error in its CodecPipelineError, with ours as the cause.
    const err = (await firstChunk({ ...NUMCODECS_CONFIG, mode_spec: 'try_float_mult' }).catch((e) => e)).cause;
    expect(err).toBeInstanceOf(PcoError);
    expect(err.code).toBe(CODES.UNSUPPORTED);
    const missingOrder = (await firstChunk({ ...NUMCODECS_CONFIG, delta_spec: 'try_consecutive' }).catch((e) => e)).cause;
    expect(missingOrder).toBeInstanceOf(PcoError);
    expect(missingOrder.code).toBe(CODES.UNSUPPORTED);
  });
});

describe('in a worker pool', () => {
  let pool;
  beforeAll(async () => {
    pool = await createWorkerPool({ size: 1, init: { formats: ['pco'] } });
  });
  afterAll(() => pool?.terminate());

  test("the pool's 'pco' 'encode' job, and the codec encoding through it", async () => {
    const values = Float32Array.from({ length: 1000 }, (_, i) => i / 4);
    const file = await pool.run({ format: 'pco', op: 'encode', args: [values, { level: 3 }] });
    expect(Buffer.from(bytesOf(pco.decode(file))).equals(Buffer.from(bytesOf(values)))).toBe(true);

    const registry = new Map();
    registerPcodec(registry, { pool });
    const codec = (await registry.get('numcodecs.pcodec')()).fromConfig(NUMCODECS_CONFIG, { dataType: 'float32', shape: [1000] });
    const chunk = await codec.encode({ data: values, shape: [1000], stride: [1] });
    expect(Buffer.from(bytesOf((await codec.decode(chunk)).data)).equals(Buffer.from(bytesOf(values)))).toBe(true);
  });
});
