// pco.decodeInto: values written into the caller's typed array.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { init, pco } from '../../../js/index.js';
import { bytesOf, concatBytes, expectSameBytes, pcoCases, pcoCorruptCases, pcoDir, readBytes } from '../helpers/corpus.js';

const standalone = pcoCases().filter((c) => c.format === 'standalone');

beforeAll(async () => {
  await init();
});

describe('values equal the corpus', () => {
  test.each(standalone.filter((c) => c.expected !== null && c.n > 0).map((c) => [c.name, c]))('%s', (name, c) => {
    const bytes = readBytes(pcoDir, c.file);
    const Type = pco.decode(bytes).constructor;
    // Room for more than the file holds, at an offset into a larger buffer, filled with a
    // marker: only the first n slots change.
    const buffer = new ArrayBuffer((c.n + 5) * Type.BYTES_PER_ELEMENT);
    const out = new Type(buffer, Type.BYTES_PER_ELEMENT, c.n + 3);
    new Uint8Array(buffer).fill(0xa5);
    const values = pco.decodeInto(bytes, out);
    expect(values.length).toBe(c.n);
    expect(values.buffer).toBe(buffer);
    expect(values.byteOffset).toBe(Type.BYTES_PER_ELEMENT);
    expectSameBytes(bytesOf(values), readBytes(pcoDir, c.expected), name);
    const untouched = new Uint8Array(buffer, (c.n + 1) * Type.BYTES_PER_ELEMENT);
    expect(untouched.every((b) => b === 0xa5)).toBe(true);
    expect(new Uint8Array(buffer, 0, Type.BYTES_PER_ELEMENT).every((b) => b === 0xa5)).toBe(true);
  });
});

test('one array reused for many files holds each file in turn', () => {
  const out = new Int32Array(1000);
  for (const n of [255, 256, 257, 512, 513]) {
    const values = pco.decodeInto(readBytes(pcoDir, `size_i32_n${n}.pco`), out);
    expect(values.length).toBe(n);
    expectSameBytes(bytesOf(values), readBytes(pcoDir, `size_i32_n${n}.bin`), `n${n}`);
  }
});

test('a file without chunks writes nothing', () => {
  const out = new Float32Array(4).fill(7);
  expect(pco.decodeInto(readBytes(pcoDir, 'empty_f32.pco'), out).length).toBe(0);
  expect(Array.from(out)).toEqual([7, 7, 7, 7]);
});

describe('refuses what does not fit, with the reason', () => {
  const file = readBytes(pcoDir, 'classic_i32_n1000.pco');

  test('out of another dtype', () => {
    expect(() => pco.decodeInto(file, new Float32Array(1000))).toThrow(/holds i32 values.*Int32Array.*Float32Array/);
    expect(() => pco.decodeInto(file, new Uint8Array(4000))).toThrow(TypeError);
  });

  test('out too small: nothing written past it', () => {
    const buffer = new ArrayBuffer(4000);
    const out = new Int32Array(buffer, 0, 999);
    new Uint8Array(buffer).fill(0xa5);
    expect(() => pco.decodeInto(file, out)).toThrow(RangeError);
    expect(() => pco.decodeInto(file, out)).toThrow(/out \(3996 bytes\) is too small.*4000 bytes/);
    expect(new Uint8Array(buffer).every((b) => b === 0xa5)).toBe(true);
  });

  test('maxOutputBytes still applies when out is larger', () => {
    expect(() => pco.decodeInto(file, new Int32Array(1000), { maxOutputBytes: 3999 })).toThrow(/over the limit of 3999/);
    expect(() => pco.decodeInto(file, new Int32Array(1000), { maxOutputBytes: 3999 })).not.toThrow(RangeError);
  });

  test('not a typed array', () => {
    expect(() => pco.decodeInto(file, new ArrayBuffer(4000))).toThrow(/out must be a typed array, got an ArrayBuffer \(view it as/);
    expect(() => pco.decodeInto(file, new DataView(new ArrayBuffer(4000)))).toThrow(TypeError);
    expect(() => pco.decodeInto(file, [])).toThrow(TypeError);
    expect(() => pco.decodeInto('not bytes', new Int32Array(1))).toThrow(/bytes must be a Uint8Array, another ArrayBufferView or an ArrayBuffer/);
  });

  test('corrupt files and mixed dtypes', () => {
    const bad = pcoCorruptCases().find((c) => c.expect === 'error');
    expect(() => pco.decodeInto(readBytes(pcoDir, bad.file), new Float64Array(1 << 16))).toThrow(Error);
    const a = readBytes(pcoDir, 'classic_i32_n1000.pco');
    const b = readBytes(pcoDir, 'classic_f32_n1000.pco');
    const [, aEnd] = pco.inspect(a).chunks[0].byteRange;
    const [bStart, bEnd] = pco.inspect(b).chunks[0].byteRange;
    const mixed = concatBytes([a.subarray(0, aEnd), b.subarray(bStart, bEnd), new Uint8Array([0])]);
    expect(() => pco.decodeInto(mixed, new Int32Array(2000))).toThrow(/different dtypes.*decodeChunks/);
  });
});
