// alp.decodeInto (memory the caller owns) and alp.decodeView (values left in wasm memory): the
// same values as the corpus bit for bit, ranges, nothing written outside `out` or on bad pages,
// and the usual argument errors.
import { beforeAll, describe, expect, test } from '@jest/globals';
import path from 'node:path';
import { AlpError, CODES, alp, init } from '../../../js/index.js';
import { getModule } from '../../../js/wasm/load.js';
import { bytesOf, corpusRoot, expectSameBytes, readBytes, readJson, sha256 } from '../helpers/corpus.js';

const alpDir = path.join(corpusRoot, 'alp');
const cases = readJson(alpDir, 'manifest.json');
const corrupt = readJson(alpDir, 'corrupt/manifest.json').filter((c) => c.expect === 'error');
const dtypeOf = (c) => (c.dtype === 'float32' ? 'f32' : 'f64');
const TypeOf = (c) => (dtypeOf(c) === 'f32' ? Float32Array : Float64Array);
const MARK = 0x5a;

beforeAll(() => init());

function expected(c) {
  return c.expected ? readBytes(alpDir, c.expected) : null;
}

function check(c, got) {
  if (c.expected) expectSameBytes(bytesOf(got), expected(c), c.name);
  else expect(sha256(bytesOf(got))).toBe(c.sha256_of_expected);
}

describe('decodeInto', () => {
  test.each(cases.map((c) => [c.name, c]))('%s: bit-exact at an offset, nothing outside touched', (_n, c) => {
    const Type = TypeOf(c);
    const backing = new Uint8Array((c.n + 10) * Type.BYTES_PER_ELEMENT).fill(MARK);
    const out = new Type(backing.buffer, 3 * Type.BYTES_PER_ELEMENT, c.n + 4);
    const got = alp.decodeInto(readBytes(alpDir, c.file), out);
    expect(got.length).toBe(c.n);
    expect(got.buffer).toBe(backing.buffer);
    check(c, got);
    const el = Type.BYTES_PER_ELEMENT;
    for (const i of [...Array(3 * el).keys(), ...Array.from({ length: 7 * el }, (_, k) => (c.n + 3) * el + k)]) {
      expect(backing[i]).toBe(MARK);
    }
  });

  test('a range crossing vectors equals the slice of the full decode', () => {
    const c = cases.find((x) => x.n > 5000 && x.expected);
    const page = readBytes(alpDir, c.file);
    const all = alp.decode(page, dtypeOf(c));
    const out = new (TypeOf(c))(3000);
    const got = alp.decodeInto(page, out, { start: 1000, end: 3500 });
    expect(got.length).toBe(2500);
    expectSameBytes(bytesOf(got), bytesOf(all.subarray(1000, 3500)), 'range');
  });

  test('wrong class, too small and unknown options are argument errors; out untouched', () => {
    const c = cases.find((x) => x.n > 100 && x.expected && dtypeOf(x) === 'f64');
    const page = readBytes(alpDir, c.file);
    expect(() => alp.decodeInto(page, new Uint8Array(c.n * 8))).toThrow(TypeError);
    expect(() => alp.decodeInto(page, new Float64Array(c.n), { dtype: 'f32' })).toThrow(TypeError);
    // out's class is the dtype: this f64 page read as f32 is refused by the decoder itself.
    expect(() => alp.decodeInto(page, new Float32Array(c.n))).toThrow(AlpError);
    const small = new Float64Array(c.n - 1).fill(7);
    expect(() => alp.decodeInto(page, small)).toThrow(RangeError);
    expect(small.every((v) => v === 7)).toBe(true);
    expect(() => alp.decodeInto(page, new Float64Array(c.n), { strat: 1 })).toThrow(/unknown option "strat"/);
    expect(() => alp.decodeInto(page, new Float64Array(c.n), { start: 0, end: c.n + 1 })).toThrow(RangeError);
  });

  test('a damaged page throws AlpError and writes nothing', () => {
    for (const c of corrupt) {
      const out = new (TypeOf(c))(1 << 16).fill(3);
      let err;
      try {
        alp.decodeInto(readBytes(alpDir, `corrupt/${c.file}`), out);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(AlpError);
      expect(out.every((v) => v === 3)).toBe(true);
    }
  });
});

describe('decodeView', () => {
  test.each(cases.map((c) => [c.name, c]))('%s: values in wasm memory, bit-exact', (_n, c) => {
    const view = alp.decodeView(readBytes(alpDir, c.file), { dtype: dtypeOf(c) });
    try {
      expect(view.dtype).toBe(dtypeOf(c));
      expect(view.length).toBe(c.n);
      expect(view.values).toBeInstanceOf(TypeOf(c));
      expect(view.values.buffer).toBe(getModule('alp').HEAPU8.buffer);
      check(c, view.values);
    } finally {
      view.release();
    }
    expect(view.released).toBe(true);
    expect(() => view.values).toThrow(/released/);
    view.release(); // twice is fine
  });

  test('Symbol.dispose is release(), close() (deprecated) releases too; a view survives memory growth', () => {
    const c = cases.find((x) => x.n > 100000);
    const page = readBytes(alpDir, c.file);
    const other = alp.decodeView(page, dtypeOf(c));
    expect([other.length, other.byteLength]).toEqual([c.n, c.n * (dtypeOf(c) === 'f32' ? 4 : 8)]);
    other.close();
    expect(other.released).toBe(true);
    const view = alp.decodeView(page, dtypeOf(c));
    if (typeof Symbol.dispose === 'symbol') expect(view[Symbol.dispose]).toBe(view.release);
    const before = sha256(bytesOf(view.values));
    // Force growth: a large allocation while the view lives.
    const mod = getModule('alp');
    const big = mod._malloc(256 << 20);
    try {
      expect(sha256(bytesOf(view.values))).toBe(before);
    } finally {
      mod._free(big);
      view.release();
    }
  });

  test('maxOutputBytes refuses a larger page with ERR_OUTPUT_LIMIT before allocating', () => {
    const c = cases.find((x) => x.n > 1000);
    let err;
    try {
      alp.decodeView(readBytes(alpDir, c.file), { dtype: dtypeOf(c), maxOutputBytes: 100 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AlpError);
    expect(err.code).toBe(CODES.OUTPUT_LIMIT);
  });
});

test('decode takes the dtype string or an options object alike', () => {
  const c = cases.find((x) => x.n > 3000 && x.expected);
  const page = readBytes(alpDir, c.file);
  const a = alp.decode(page, dtypeOf(c));
  const b = alp.decode(page, { dtype: dtypeOf(c), start: 10, end: 2050 });
  expectSameBytes(bytesOf(b), bytesOf(a.subarray(10, 2050)), 'options range');
  expect(() => alp.decode(page, { dtype: 'f16' })).toThrow(TypeError);
});
