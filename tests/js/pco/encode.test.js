// pco.encode / pco.encodeWrapped: every dtype round-trips bit for bit through pco.decode; the
// options reach the file (as pco.inspect reports them); bad options are refused with TypeError or
// RangeError before anything is encoded; the encoder module loads only when first used.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { init, pco } from '../../../js/index.js';
import { formatLoaded } from '../../../js/wasm/load.js';
import { bytesOf } from '../helpers/corpus.js';
import { rejection } from '../helpers/rejection.js';
import { rng as seededRandom } from '../helpers/seeded-random.js';

beforeAll(() => init({ formats: ['pco'] }));

const sameBits = (a, b) => Buffer.from(bytesOf(a)).equals(Buffer.from(bytesOf(b)));

// Values of each dtype: random bits (NaN payloads, -0, infinities and subnormals among the
// floats' bit patterns), the extremes, and smooth runs that the modes and deltas pick up.
function valuesOf(Type, n, seed, bits) {
  const random = seededRandom(seed);
  const u8 = new Uint8Array(n * Type.BYTES_PER_ELEMENT);
  for (let i = 0; i < u8.length; i++) u8[i] = Math.floor(random() * 256);
  const v = new Type(u8.buffer);
  const big = typeof v[0] === 'bigint';
  for (let i = 0; i < n; i += 3) v[i] = big ? BigInt(i * 1000) : Type === Float32Array || Type === Float64Array ? i / 10 : i % (2 ** Math.min(bits, 31));
  return v;
}

const INT_TYPES = [
  ['u8', Uint8Array, 8],
  ['i8', Int8Array, 8],
  ['u16', Uint16Array, 16],
  ['i16', Int16Array, 16],
  ['u32', Uint32Array, 32],
  ['i32', Int32Array, 32],
  ['u64', BigUint64Array, 64],
  ['i64', BigInt64Array, 64],
];

// First in this file: nothing has encoded yet.
test('the encoder module loads on first use only', async () => {
  expect(formatLoaded('pco')).toBe(true);
  expect(formatLoaded('pco-encode')).toBe(false);
  expect([...pco.decode(await pco.encode(new Uint8Array([1, 2])))]).toEqual([1, 2]);
  expect(formatLoaded('pco-encode')).toBe(true);
});

describe('every dtype round-trips bit for bit', () => {
  test.each(INT_TYPES)('%s', async (dtype, Type, bits) => {
    const values = valuesOf(Type, 5000, 1, bits);
    values[1] = Type === BigInt64Array ? -(2n ** 63n) : Type === BigUint64Array ? 2n ** 64n - 1n : Type === Int8Array ? -128 : values[1];
    const file = await pco.encode(values);
    const back = pco.decode(file);
    expect(back).toBeInstanceOf(Type);
    expect(sameBits(back, values)).toBe(true);
    expect(pco.inspect(file).uniformDtype).toBe(dtype);
  });

  test('f32 and f64 with NaN payloads, -0, infinities and subnormals', async () => {
    for (const [Type, special] of [
      [Float32Array, new Uint32Array([0x7fc00001, 0xff800000, 0x7f800000, 0x80000000, 0x00000001, 0x807fffff, 0x7fa00000])],
      [Float64Array, new BigUint64Array([0x7ff8000000000123n, 0xfff0000000000000n, 0x8000000000000000n, 1n, 0x7ff4000000000000n])],
    ]) {
      const values = valuesOf(Type, 4000, 2, 64);
      new special.constructor(values.buffer).set(special, 10);
      for (const mode of ['auto', 'classic', { kind: 'floatMult', base: 0.1 }, { kind: 'floatQuant', k: 7 }, 'dict']) {
        const file = await pco.encode(values, { mode });
        expect(sameBits(pco.decode(file), values)).toBe(true);
      }
    }
  });

  test('f16 as its bits in a Uint16Array', async () => {
    const bits = new Uint16Array([0x3c00, 0xc000, 0x7bff, 0x0001, 0x8000, 0x7c00, 0xfc00, 0x7e01, 0xfd00, 0x3555]);
    const file = await pco.encode(bits, { dtype: 'f16' });
    expect(pco.inspect(file).chunks[0].dtype).toBe('f16');
    expect(sameBits(pco.decode(file), bits)).toBe(true);
  });

  test('an empty array gives a file of no chunks that keeps its dtype; one value works', async () => {
    const empty = await pco.encode(new Float32Array(0));
    expect(empty.length).toBe(10); // as pcodec writes an empty file
    const back = pco.decode(empty);
    expect(back).toBeInstanceOf(Float32Array);
    expect(back.length).toBe(0);
    const one = pco.decode(await pco.encode(new BigInt64Array([-5n])));
    expect([...one]).toEqual([-5n]);
  });

  test('an Array of numbers with options.dtype', async () => {
    expect([...pco.decode(await pco.encode([3, 1, 4, 1, 5], { dtype: 'i16' }))]).toEqual([3, 1, 4, 1, 5]);
    expect([...pco.decode(await pco.encode([2, 7n], { dtype: 'u64' }))]).toEqual([2n, 7n]);
    expect([...pco.decode(await pco.encode([-(2n ** 63n), 2 ** 53 - 1], { dtype: 'i64' }))]).toEqual([-(2n ** 63n), 2n ** 53n - 1n]);
    expect([...pco.decode(await pco.encode([0, 255, -0], { dtype: 'u8' }))]).toEqual([0, 255, 0]);
    expect(Object.is(pco.decode(await pco.encode([-0, NaN], { dtype: 'f64' }))[0], -0)).toBe(true);
  });
});

describe('options reach the file', () => {
  const smooth = Int32Array.from({ length: 3000 }, (_, i) => Math.round(Math.sin(i / 300) * 1e5) * 3);
  const chunk = async (values, options) => pco.inspect(await pco.encode(values, options)).chunks[0];

  test('modes and delta encodings as asked', async () => {
    expect((await chunk(smooth, { mode: { kind: 'intMult', base: 3 }, delta: 'noOp' })).mode).toEqual({ name: 'IntMult', base: 3 });
    expect((await chunk(smooth, { mode: 'classic', delta: { kind: 'consecutive', order: 2 } })).delta).toEqual({
      name: 'Consecutive',
      order: 2,
      secondaryUsesDelta: false,
    });
    const lookback = await chunk(smooth, { mode: 'classic', delta: 'lookback' });
    expect(lookback.delta.name).toBe('Lookback');
    expect(lookback.latentVars.map((v) => v.key)).toEqual(['delta', 'primary']);
    const conv1 = await chunk(smooth, { mode: 'classic', delta: { kind: 'conv1', order: 2 } });
    expect(conv1.delta.name).toBe('Conv1');
    expect(conv1.delta.weights).toHaveLength(2);
    const levels = Int32Array.from({ length: 3000 }, (_, i) => (i % 7) * 1000 - 3);
    expect((await chunk(levels, { mode: 'dict' })).mode.name).toBe('Dict');
    // A dictionary of every value is larger than the values themselves: pcodec's guarantee, never
    // larger than the numbers written verbatim, writes them so (Classic), as pcodec does. Before,
    // the dictionary was left out of the size bound: 5 000 distinct i32 took 27 738 bytes.
    const distinct = Int32Array.from({ length: 5000 }, (_, i) => (i * 40503) | 0);
    const file = await pco.encode(distinct, { mode: 'dict' });
    expect(pco.inspect(file).chunks[0].mode.name).toBe('Classic');
    expect(file.length).toBeLessThan(distinct.byteLength + 64);
    expect(sameBits(pco.decode(file), distinct)).toBe(true);
    const tenths = Float64Array.from({ length: 3000 }, (_, i) => (i % 500) / 10);
    expect((await chunk(tenths, { mode: { kind: 'floatMult', base: 0.1 }, delta: 'none' })).mode).toEqual({ name: 'FloatMult', base: 0.1 });
    expect((await chunk(tenths, { mode: { kind: 'floatQuant', k: 9 } })).mode).toEqual({ name: 'FloatQuant', k: 9 });
  });

  test("a file's inspected mode and delta can be passed back as they are", async () => {
    const first = await chunk(smooth, { mode: { kind: 'intMult', base: 3 }, delta: { kind: 'consecutive', order: 1 } });
    const again = await chunk(smooth, { mode: first.mode, delta: first.delta });
    expect(again.mode).toEqual(first.mode);
    expect(again.delta).toEqual(first.delta);
  });

  test('auto finds the multiple and the delta', async () => {
    const stamps = BigInt64Array.from({ length: 5000 }, (_, i) => 1700000000000n + BigInt(i) * 1000n);
    const c = await chunk(stamps);
    expect(c.mode).toEqual({ name: 'IntMult', base: 1000n });
    expect(c.delta.name).toBe('Consecutive');
  });

  test('chunk sizes, and levels', async () => {
    const values = Float32Array.from({ length: 10000 }, (_, i) => i);
    expect(pco.inspect(await pco.encode(values, { chunkSize: 3000 })).chunks.map((c) => c.n)).toEqual([2500, 2500, 2500, 2500]);
    expect(pco.inspect(await pco.encode(values, { chunkSizes: [1, 9999] })).chunks.map((c) => c.n)).toEqual([1, 9999]);
    for (const level of [0, 12]) expect(sameBits(pco.decode(await pco.encode(values, { level })), values)).toBe(true);
  });

  test('encodeWrapped: pages that pco.wrapped reads back', async () => {
    const values = Float64Array.from({ length: 2500 }, (_, i) => i * 0.25);
    const w = await pco.encodeWrapped(values, { pageSize: 1000 });
    expect(w.dtype).toBe('f64');
    expect(w.pages.map((p) => p.n)).toEqual([834, 833, 833]);
    const reader = pco.wrapped.open(w.header).chunk(w.meta, w.dtype);
    const back = new Float64Array(2500);
    let at = 0;
    for (const page of w.pages) {
      back.set(reader.decodePage(page.bytes, page.n), at);
      at += page.n;
    }
    expect(sameBits(back, values)).toBe(true);
    const exact = await pco.encodeWrapped(values, { pageSizes: [2000, 500] });
    expect(exact.pages.map((p) => p.n)).toEqual([2000, 500]);
    // The largest pageSize allowed: one page. (n + pageSize - 1 wrapped past 2^32 in wasm: 0 pages,
    // then a division by 0 that trapped and left the encoder's stack behind.)
    for (const pageSize of [2 ** 32 - 1, 2 ** 32 - 2500, 2500]) {
      const one = await pco.encodeWrapped(values, { pageSize });
      expect([pageSize, one.pages.map((p) => p.n)]).toEqual([pageSize, [2500]]);
      expect(sameBits(pco.wrapped.open(one.header).chunk(one.meta, one.dtype).decodePage(one.pages[0].bytes, 2500), values)).toBe(true);
    }
  });
});

describe('bad values and options are refused before encoding', () => {
  const ints = new Int32Array([1, 2, 3]);
  test.each([
    ['values not numbers', 'abc', undefined, TypeError],
    ['an Array without dtype', [1, 2], undefined, TypeError],
    // An Array's values as the dtype holds them, or refused (a typed array's constructor would wrap or cut them).
    ['an Array: 1.5 as i32', [1, 1.5], { dtype: 'i32' }, TypeError],
    ['an Array: NaN as i32', [NaN], { dtype: 'i32' }, TypeError],
    ['an Array: 256 as u8', [255, 256], { dtype: 'u8' }, RangeError],
    ['an Array: -1 as u8', [-1], { dtype: 'u8' }, RangeError],
    ['an Array: -1 as u64', [-1], { dtype: 'u64' }, RangeError],
    ['an Array: 2n ** 64n as u64', [2n ** 64n], { dtype: 'u64' }, RangeError],
    ['an Array: 2 ** 53 as i64 (not safe)', [2 ** 53], { dtype: 'i64' }, TypeError],
    ['an Array: a bigint as i32', [1n], { dtype: 'i32' }, TypeError],
    ['an Array: a string as f64', ['1'], { dtype: 'f64' }, TypeError],
    ['an Array: 0.5 as f16 (its bits come as integers)', [0.5], { dtype: 'f16' }, TypeError],
    ['a DataView', new DataView(new ArrayBuffer(4)), undefined, TypeError],
    ['a Uint8ClampedArray (no Pco dtype)', new Uint8ClampedArray(3), undefined, TypeError],
    ['dtype against the array', ints, { dtype: 'f32' }, TypeError],
    ['an unknown option', ints, { levle: 3 }, TypeError],
    ['level 13', ints, { level: 13 }, RangeError],
    ['level 1.5', ints, { level: 1.5 }, TypeError],
    ['an unknown mode', ints, { mode: 'gcd' }, TypeError],
    ['intMult base 0', ints, { mode: { kind: 'intMult', base: 0 } }, RangeError],
    ['intMult base too wide', new Uint8Array(3), { mode: { kind: 'intMult', base: 256 } }, RangeError],
    ['intMult on floats', new Float32Array(3), { mode: { kind: 'intMult', base: 2 } }, TypeError],
    ['floatMult on integers', ints, { mode: { kind: 'floatMult', base: 0.5 } }, TypeError],
    ['floatMult base 0', new Float64Array(3), { mode: { kind: 'floatMult', base: 0 } }, RangeError],
    ['floatMult base past f32', new Float32Array(3), { mode: { kind: 'floatMult', base: 1e300 } }, RangeError],
    ['floatMult base 2^-25 as f16 (rounds to 0: a tie, to even)', new Uint16Array(3), { dtype: 'f16', mode: { kind: 'floatMult', base: -(2 ** -25) } }, RangeError],
    ['floatQuant k past the mantissa', new Float32Array(3), { mode: { kind: 'floatQuant', k: 24 } }, RangeError],
    ['a mode field of another mode', ints, { mode: { kind: 'classic', base: 2 } }, TypeError],
    ['consecutive order 8', ints, { delta: { kind: 'consecutive', order: 8 } }, RangeError],
    ['consecutive without order', ints, { delta: 'consecutive' }, TypeError],
    ['conv1 on 64-bit', new BigInt64Array(3), { delta: { kind: 'conv1', order: 2 } }, RangeError],
    ['secondaryUsesDelta', ints, { delta: { kind: 'consecutive', order: 1, secondaryUsesDelta: true } }, RangeError],
    ['secondaryUsesDelta not a boolean', ints, { delta: { kind: 'consecutive', order: 1, secondaryUsesDelta: 'yes' } }, TypeError],
    ['chunkSize 0', ints, { chunkSize: 0 }, RangeError],
    ['chunkSize past 2^24', ints, { chunkSize: 2 ** 24 + 1 }, RangeError],
    ['chunkSizes not summing to n', ints, { chunkSizes: [1, 1] }, RangeError],
    ['chunkSize and chunkSizes', ints, { chunkSize: 2, chunkSizes: [3] }, TypeError],
    ['pageSize in a standalone file', ints, { pageSize: 2 }, TypeError],
  ])('%s', async (_, values, options, Type) => {
    expect(await rejection(pco.encode(values, options))).toBeInstanceOf(Type);
  });

  test('encodeWrapped refuses an empty chunk and chunk sizes', async () => {
    expect(await rejection(pco.encodeWrapped(new Int32Array(0)))).toBeInstanceOf(RangeError);
    expect(await rejection(pco.encodeWrapped(ints, { chunkSize: 2 }))).toBeInstanceOf(TypeError);
  });
});

