// toFloat32: f16 data decodes to its bits (a Uint16Array); toFloat32 gives the numbers.
import { beforeAll, expect, test } from '@jest/globals';
import { init, pco, toFloat32 } from '../../../js/index.js';
import { pcoDir, readBytes } from '../helpers/corpus.js';

beforeAll(() => init({ formats: ['pco'] }));

test('toFloat32 gives each half-precision value exactly', () => {
  const bits = new Uint16Array([0x3c00, 0xc000, 0x7bff, 0x0001, 0x03ff, 0x0400, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x3555]);
  const want = [1, -2, 65504, 2 ** -24, 1023 * 2 ** -24, 2 ** -14, -0, Infinity, -Infinity, NaN, 0.333251953125];
  const got = toFloat32(bits);
  expect(got).toBeInstanceOf(Float32Array);
  expect([...got]).toEqual(want);
  expect(Object.is(got[6], -0)).toBe(true);
  expect(toFloat32(0x3c00)).toBe(1);
  expect(() => toFloat32('1')).toThrow(TypeError);
});

test('a decoded f16 file as numbers: its bits, converted', () => {
  const bits = pco.decode(readBytes(pcoDir, 'classic_f16_n1000.pco'));
  expect(bits).toBeInstanceOf(Uint16Array);
  const expected = new Uint16Array(readBytes(pcoDir, 'classic_f16_n1000.bin').buffer);
  expect(Buffer.from(bits.buffer, bits.byteOffset, bits.byteLength).equals(Buffer.from(expected.buffer))).toBe(true);
  const values = toFloat32(bits);
  // Each value, by the half-precision layout: sign, 5 exponent bits, 10 fraction bits.
  for (let i = 0; i < bits.length; i++) {
    const b = expected[i];
    const e = (b >> 10) & 31;
    const f = b & 1023;
    const mag = e === 0 ? f * 2 ** -24 : e === 31 ? (f ? NaN : Infinity) : (1 + f / 1024) * 2 ** (e - 15);
    expect(values[i]).toBe(b & 0x8000 ? -mag : mag);
  }
});
