// ALP's inspect, decodeVector and encode are plain exported C functions that leave their result
// in wasm memory for js/alp.js to copy out (no embind): results of different calls and dtypes
// must not overwrite each other, a large encoded page (freed right after the copy) must come back
// whole, and the decoder's errors must keep their class, code and message.
import { beforeAll, expect, test } from '@jest/globals';
import path from 'node:path';
import { alp, AlpError, CODES, init } from '../../../js/alp-entry.js';
import { corpusRoot, readBytes } from '../helpers/corpus.js';
import { rng } from '../helpers/seeded-random.js';

const alpDir = path.join(corpusRoot, 'alp');
const bytesOf = (typed) => Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength);

beforeAll(async () => {
  await init();
});

test('interleaved decodeVector, inspect and encode calls each return their own values', () => {
  const f32Page = readBytes(alpDir, 'f32_bw32_n2048.alp');
  const f64Page = readBytes(alpDir, 'f64_bw64_n2048.alp');
  const f32All = new Float32Array(readBytes(alpDir, 'f32_bw32_n2048.bin').buffer);
  const f64All = new Float64Array(readBytes(alpDir, 'f64_bw64_n2048.bin').buffer);
  const f32Info = alp.inspect(f32Page, 'f32');
  const f32Vector = alp.decodeVector(f32Page, 'f32', 1);
  const f64Vector = alp.decodeVector(f64Page, 'f64', 1);
  const f64Info = alp.inspect(f64Page, 'f64');
  const encoded = alp.encode(new Float64Array([0.5, 1.25, -3]));
  const f64Vector0 = alp.decodeVector(f64Page, 'f64', 0);
  const { firstValue: at32 } = f32Info.vectors[1];
  const { firstValue: at64 } = f64Info.vectors[1];
  expect(f32Vector).toBeInstanceOf(Float32Array);
  expect(bytesOf(f32Vector).equals(bytesOf(f32All.subarray(at32, at32 + f32Vector.length)))).toBe(true);
  expect(bytesOf(f64Vector).equals(bytesOf(f64All.subarray(at64, at64 + f64Vector.length)))).toBe(true);
  expect(bytesOf(f64Vector0).equals(bytesOf(f64All.subarray(0, f64Vector0.length)))).toBe(true);
  expect([f32Info.dtype, f32Info.numElements, f64Info.dtype, f64Info.numElements]).toEqual(['f32', 2048, 'f64', 2048]);
  expect(Array.from(alp.decode(encoded, 'f64'))).toEqual([0.5, 1.25, -3]);
});

test('an encoded page over 1 MiB comes back whole, and the next calls still work', () => {
  const random = rng(16);
  const values = new Float64Array(200_000);
  for (let i = 0; i < values.length; i++) values[i] = (random() - 0.5) * 1e6; // full-precision: mostly exceptions
  const page = alp.encode(values, { layout: 'merged' });
  expect(page.byteLength).toBeGreaterThan(1 << 20);
  expect(page[0]).toBe(0);
  expect(bytesOf(alp.decode(page, 'f64')).equals(bytesOf(values))).toBe(true);
  const small = alp.encode(values.subarray(0, 5));
  expect(bytesOf(alp.decode(small, 'f64')).equals(bytesOf(values.subarray(0, 5)))).toBe(true);
  const vector = alp.decodeVector(page, 'f64', 3);
  expect(bytesOf(vector).equals(bytesOf(values.subarray(3 * 1024, 4 * 1024)))).toBe(true);
});

test('the decoder\'s errors keep their class, code and message', () => {
  const page = readBytes(alpDir, 'f64_bw64_n2048.alp');
  const caught = (fn) => {
    try {
      fn();
    } catch (err) {
      return err;
    }
    throw new Error('no error thrown');
  };
  const past = caught(() => alp.decodeVector(page, 'f64', 2));
  expect(past).toBeInstanceOf(AlpError);
  expect(past.code).toBe(CODES.BAD_DATA);
  expect(past.message).toBe('ALP: vector 2 requested but the page has 2 vectors');
  const header = caught(() => alp.inspect(readBytes(alpDir, 'corrupt/f32_hdr_mode_1.alp'), 'f32'));
  expect(header).toBeInstanceOf(AlpError);
  expect(header.code).toBe(CODES.UNSUPPORTED);
  expect(header.message).toMatch(/compression mode 1/);
  const reader = alp.open(page, 'f64');
  const inReader = caught(() => reader.decodeVector(7));
  reader.close();
  expect(inReader).toBeInstanceOf(AlpError);
  expect(inReader.message).toBe('ALP: vector 7 requested but the page has 2 vectors');
});
