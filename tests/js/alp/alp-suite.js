// The ALP tests, defined once and run against each wasm build (alp-simd.test.js,
// alp-scalar.test.js): corpus pages bit-exact, both layouts, inspect, random access, malformed
// pages, encoder round trips.
import { describe, expect, test, beforeAll } from '@jest/globals';
import path from 'node:path';
import { alp, buildInfo, init } from '../../../js/index.js';
import { bytesOf, corpusRoot, expectSameBytes, readBytes, readJson, sha256 } from '../helpers/corpus.js';

const alpDir = path.join(corpusRoot, 'alp');
const cases = readJson(alpDir, 'manifest.json');
const corrupt = readJson(alpDir, 'corrupt/manifest.json');
const dtypeOf = (c) => (c.dtype === 'float32' ? 'f32' : 'f64');
const small = cases.filter((c) => c.expected !== null);

function expectedBytes(c) {
  return readBytes(alpDir, c.expected);
}

// The draft page without its version byte is the same page in the merged layout.
function toMerged(page) {
  return page.slice(1);
}

function floatsFromBits(dtype, bits) {
  return dtype === 'f32' ? new Float32Array(new Uint32Array(bits).buffer) : new Float64Array(new BigUint64Array(bits).buffer);
}

export function defineAlpSuite(simd) {
  describe(`ALP, ${simd ? 'SIMD' : 'scalar'} build`, () => {
    beforeAll(async () => {
      await init({ simd });
      expect(buildInfo().simd).toBe(simd);
    });

    test.each(cases.map((c) => [c.name, c]))('%s decodes bit-exactly', (_name, c) => {
      const dtype = dtypeOf(c);
      const page = readBytes(alpDir, c.file);
      const values = alp.decode(page, dtype);
      expect(values).toBeInstanceOf(dtype === 'f32' ? Float32Array : Float64Array);
      expect(values.length).toBe(c.n);
      if (c.expected !== null) expectSameBytes(bytesOf(values), expectedBytes(c), c.name);
      expect(sha256(bytesOf(values))).toBe(c.sha256_of_expected);
      if (c.expected !== null) {
        expectSameBytes(bytesOf(alp.decode(toMerged(page), dtype)), expectedBytes(c), `${c.name} (merged layout)`);
      }
    });

    test.each(cases.map((c) => [c.name, c]))('%s: inspect agrees with the manifest', (_name, c) => {
      const dtype = dtypeOf(c);
      const info = alp.inspect(readBytes(alpDir, c.file), dtype);
      expect(info).toMatchObject({
        dtype,
        layout: 'draft',
        headerBytes: 8,
        version: 1,
        compressionMode: 0,
        integerEncoding: 0,
        logVectorSize: c.log_vector_size,
        vectorSize: 2 ** c.log_vector_size,
        numElements: c.n,
        numVectors: c.num_vectors,
        pageBytes: c.page_bytes,
        valid: true,
      });
      expect(info.vectors.length).toBe(c.num_vectors);
      expect(info.vectors.reduce((sum, v) => sum + v.exceptions, 0)).toBe(c.exceptions);
      const pairs = new Set(info.vectors.map((v) => `${v.exponent},${v.factor}`));
      expect([...pairs].sort()).toEqual(c.exponent_factor_pairs.map(([e, f]) => `${e},${f}`).sort());
      if (c.num_vectors > 0) {
        expect(Math.min(...info.vectors.map((v) => v.bitWidth))).toBe(c.bit_width_min);
        expect(Math.max(...info.vectors.map((v) => v.bitWidth))).toBe(c.bit_width_max);
        // Vector 0 follows the offset array; vectors are contiguous in pages the reference wrote.
        expect(info.vectors[0].offset).toBe(8 + 4 * c.num_vectors);
        for (let k = 1; k < info.vectors.length; k++) {
          expect(info.vectors[k].offset).toBe(info.vectors[k - 1].offset + info.vectors[k - 1].bytes);
        }
        for (const v of info.vectors) expect(typeof v.frameOfReference).toBe(dtype === 'f32' ? 'number' : 'bigint');
      }
      const merged = alp.inspect(toMerged(readBytes(alpDir, c.file)), dtype);
      expect(merged.layout).toBe('merged');
      expect(merged.headerBytes).toBe(7);
      expect(merged.version).toBeUndefined();
    });

    test('decodeVector and decodeRange return the matching slices of the full decode', () => {
      for (const name of ['f32_price2_n1025', 'f64_specials_n3000', 'f32_lvs8_n3000', 'f64_lvs12_n10000']) {
        const c = cases.find((x) => x.name === name);
        const dtype = dtypeOf(c);
        const page = readBytes(alpDir, c.file);
        const all = alp.decode(page, dtype);
        const vs = 2 ** c.log_vector_size;
        for (let k = 0; k < c.num_vectors; k++) {
          const v = alp.decodeVector(page, dtype, k);
          expectSameBytes(bytesOf(v), bytesOf(all.subarray(k * vs, Math.min(c.n, (k + 1) * vs))), `${name} vector ${k}`);
        }
        for (const [start, end] of [[0, c.n], [0, 0], [c.n, c.n], [vs - 1, vs + 1], [5, c.n - 3], [vs, c.n]]) {
          const r = alp.decodeRange(page, dtype, start, end);
          expectSameBytes(bytesOf(r), bytesOf(all.subarray(start, end)), `${name} range ${start}..${end}`);
        }
        expect(() => alp.decodeRange(page, dtype, 0, c.n + 1)).toThrow(/outside the page/);
        expect(() => alp.decodeVector(page, dtype, c.num_vectors)).toThrow(/vector \d+ requested/);
        expect(() => alp.decodeVector(page, dtype, -1)).toThrow(RangeError);
      }
    });

    test('open() keeps a page for repeated access until close()', () => {
      const c = cases.find((x) => x.name === 'f64_bench_sensor3_n2097152');
      const page = readBytes(alpDir, c.file);
      const all = alp.decode(page, 'f64');
      const reader = alp.open(page, 'f64');
      expect(reader.length).toBe(c.n);
      expect(reader.numVectors).toBe(c.num_vectors);
      for (const k of [0, 1, 1000, c.num_vectors - 1]) {
        expectSameBytes(bytesOf(reader.decodeVector(k)), bytesOf(all.subarray(k * 1024, (k + 1) * 1024)), `vector ${k}`);
      }
      expectSameBytes(bytesOf(reader.decodeRange(123456, 200000)), bytesOf(all.subarray(123456, 200000)), 'range');
      expect(sha256(bytesOf(reader.decode()))).toBe(c.sha256_of_expected);
      reader.close();
      expect(() => reader.decodeVector(0)).toThrow(/closed/);
      reader.close(); // twice is harmless
    });

    test.each(corrupt.map((c) => [c.name, c]))('malformed page %s', (_name, c) => {
      const dtype = dtypeOf(c);
      const page = readBytes(alpDir, `corrupt/${c.file}`);
      let error = null;
      try {
        alp.decode(page, dtype);
      } catch (err) {
        error = err;
      }
      if (c.must_reject) {
        expect(error).toBeInstanceOf(Error);
        expect(error.message).toMatch(/^ALP /);
        expect(error.message).not.toMatch(/loaded module has no/);
      } else if (error !== null) {
        expect(error).toBeInstanceOf(Error);
        expect(error.message).toMatch(/^ALP /);
      }
      // The module stays usable after an error.
      const good = cases.find((x) => x.name === 'f32_price2_n1023');
      expectSameBytes(bytesOf(alp.decode(readBytes(alpDir, good.file), 'f32')), expectedBytes(good), 'after error');
    });

    test('inspect lists a malformed vector with its error instead of failing', () => {
      const info = alp.inspect(readBytes(alpDir, 'corrupt/f32_exc_pos_past_partial.alp'), 'f32');
      expect(info.valid).toBe(false);
      expect(info.vectors[0].bitWidth).toBeDefined();
      expect(info.vectors[info.vectors.length - 1].error).toMatch(/position 957 is outside the vector's 952 values/);
      expect(() => alp.inspect(readBytes(alpDir, 'corrupt/f32_hdr_mode_1.alp'), 'f32')).toThrow(/compression mode 1/);
    });

    test('encode round-trips bit-exactly: NaN payloads, -0, infinities, subnormals, all lengths', () => {
      for (const dtype of ['f32', 'f64']) {
        const specials =
          dtype === 'f32'
            ? floatsFromBits('f32', [0x7fc00000, 0xffc00001, 0x7f800001, 0x7fbfffff, 0x80000000, 0x7f800000, 0xff800000, 1, 0x807fffff, 0x7f7fffff])
            : floatsFromBits('f64', [
                0x7ff8000000000000n, 0xfff8000000000123n, 0x7ff0000000000001n, 0x8000000000000000n,
                0x7ff0000000000000n, 0xfff0000000000000n, 1n, 0x800fffffffffffffn, 0x7fefffffffffffffn,
              ]);
        for (const n of [0, 1, 1023, 1024, 1025, 5000]) {
          const Type = dtype === 'f32' ? Float32Array : Float64Array;
          const values = new Type(n);
          for (let i = 0; i < n; i++) {
            values[i] = i % 7 === 3 ? Math.round(Math.sin(i) * 1e5) / 100 : i % 11 === 5 ? i : Math.cos(i);
          }
          for (let i = 0; i < n; i += 13) values[i] = specials[(i / 13) % specials.length];
          // Typed-array element writes may canonicalise NaN bits; the test writes the raw bits.
          const bits = new Uint8Array(values.buffer);
          const width = Type.BYTES_PER_ELEMENT;
          const specialBytes = bytesOf(specials);
          for (let i = 0; i < n; i += 13) {
            const s = (i / 13) % specials.length;
            bits.set(specialBytes.subarray(s * width, (s + 1) * width), i * width);
          }
          for (const options of [undefined, { layout: 'merged' }, { logVectorSize: 3 }, { logVectorSize: 15 }]) {
            const page = alp.encode(values, options);
            expect(page).toBeInstanceOf(Uint8Array);
            expect(page[0]).toBe(options?.layout === 'merged' ? 0 : 1);
            const back = alp.decode(page, dtype);
            expectSameBytes(bytesOf(back), bytesOf(values), `${dtype} n=${n} ${JSON.stringify(options)}`);
          }
        }
      }
    });

    test('encode compresses decimal data and honours a forced exponent/factor', () => {
      const prices = new Float64Array(10000);
      for (let i = 0; i < prices.length; i++) prices[i] = ((i * 7919) % 1000000) / 100;
      const page = alp.encode(prices);
      expect(page.byteLength).toBeLessThan(prices.byteLength * 0.35);
      expectSameBytes(bytesOf(alp.decode(page, 'f64')), bytesOf(prices), 'prices');
      const forced = alp.encode(new Float32Array([1.25, 2.5, 3.75]), { exponent: 2, factor: 0 });
      const info = alp.inspect(forced, 'f32');
      expect(info.vectors[0]).toMatchObject({ exponent: 2, factor: 0, exceptions: 0 });
      expect(Array.from(alp.decode(forced, 'f32'))).toEqual([1.25, 2.5, 3.75]);
    });

    test('argument errors are clear', () => {
      const page = readBytes(alpDir, small[1].file);
      expect(() => alp.decode(page, 'f16')).toThrow(TypeError);
      expect(() => alp.decode('not bytes', 'f32')).toThrow(TypeError);
      expect(() => alp.encode([1, 2, 3])).toThrow(TypeError);
      expect(() => alp.encode(new Float32Array(1), { layout: 'v2' })).toThrow(TypeError);
      expect(() => alp.encode(new Float32Array(1), { logVectorSize: 16 })).toThrow(RangeError);
      expect(() => alp.encode(new Float32Array(1), { exponent: 11 })).toThrow(RangeError);
      expect(() => alp.encode(new Float64Array(1), { exponent: 3, factor: 4 })).toThrow(RangeError);
      // An ArrayBuffer and a DataView work as page bytes too.
      const c = cases.find((x) => x.name === 'f64_int_n3000');
      const bytes = readBytes(alpDir, c.file);
      const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
      expectSameBytes(bytesOf(alp.decode(buffer, 'f64')), expectedBytes(c), 'ArrayBuffer input');
      expectSameBytes(bytesOf(alp.decode(new DataView(buffer), 'f64')), expectedBytes(c), 'DataView input');
    });
  });
}
