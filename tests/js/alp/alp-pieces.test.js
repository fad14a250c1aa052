// alp.decode and alp.decodeInto send a large output to JS memory in pieces of 1 MiB (decoded into
// one wasm buffer each, js/alp.js): bit-exact against the corpus whole and in ranges cut at piece
// and vector edges, a damaged vector in a later piece refused (naming it) before anything reaches
// `out`, and the same from a page read once into wasm memory (wasmInput).
import { afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { AlpError, CODES, alp, init, wasmInput } from '../../../js/index.js';
import { bytesOf, corpusRoot, expectSameBytes, readBytes, readJson, sha256 } from '../helpers/corpus.js';
import { thrown } from '../helpers/rejection.js';

const alpDir = path.join(corpusRoot, 'alp');
const manifest = readJson(alpDir, 'manifest.json');
const dtypeOf = (c) => (c.dtype === 'float32' ? 'f32' : 'f64');
const TypeOf = (dtype) => (dtype === 'f32' ? Float32Array : Float64Array);
// Values per piece: 1 MiB of output.
const PIECE = { f32: 1 << 18, f64: 1 << 17 };
const MARK = 0x5a;
// The two benchmark pages: 16 pieces each (price2: an exception in every fifth value).
const big = ['f32_bench_price2_n4194304', 'f64_bench_sensor3_n2097152'].map((name) => manifest.find((c) => c.name === name));

const live = [];
afterEach(() => {
  for (const x of live.splice(0)) x.release();
});

beforeAll(() => init());

// The page read from disk straight into wasm memory, as an application would.
function readIntoWasm(file) {
  const fd = openSync(path.join(alpDir, file), 'r');
  try {
    const size = fstatSync(fd).size;
    const input = wasmInput('alp', size);
    live.push(input);
    for (let at = 0, reads = 0; at < size; reads++) {
      if (reads > 1000) throw new Error(`${file}: too many short reads`);
      const n = readSync(fd, input.bytes, at, size - at, at);
      if (n === 0) throw new Error(`${file}: ended at byte ${at} of ${size}`);
      at += n;
    }
    return input;
  } finally {
    closeSync(fd);
  }
}

// out inside a larger marked buffer: 3 values before it and 5 after must stay untouched.
function guardedOut(Type, length) {
  const backing = new Uint8Array((length + 8) * Type.BYTES_PER_ELEMENT).fill(MARK);
  return { backing, out: new Type(backing.buffer, 3 * Type.BYTES_PER_ELEMENT, length) };
}

function expectMarkedOutside(backing, el, length) {
  const outside = [...backing.subarray(0, 3 * el), ...backing.subarray((length + 3) * el)];
  expect(outside.every((b) => b === MARK)).toBe(true);
}

// The full decode of each big page, checked once against the corpus digest.
const decoded = new Map();
function fullDecode(c) {
  if (!decoded.has(c.name)) {
    const values = alp.decode(readBytes(alpDir, c.file), dtypeOf(c));
    expect(sha256(bytesOf(values))).toBe(c.sha256_of_expected);
    decoded.set(c.name, values);
  }
  return decoded.get(c.name);
}

describe.each(big.map((c) => [c.name, c]))('%s', (_name, c) => {
  const dtype = dtypeOf(c);
  const Type = TypeOf(dtype);
  const P = PIECE[dtype];

  test('decode, decodeInto and decodeView agree with the corpus bit for bit', () => {
    const page = readBytes(alpDir, c.file);
    expect(c.n).toBeGreaterThan(8 * P);
    fullDecode(c);
    const { backing, out } = guardedOut(Type, c.n);
    const got = alp.decodeInto(page, out);
    expect(got.length).toBe(c.n);
    expect(sha256(bytesOf(got))).toBe(c.sha256_of_expected);
    expectMarkedOutside(backing, Type.BYTES_PER_ELEMENT, c.n);
    // decodeView leaves the whole output in wasm memory (no pieces): an independent path.
    const view = alp.decodeView(page, dtype);
    live.push(view);
    expect(sha256(bytesOf(view.values))).toBe(c.sha256_of_expected);
  });

  // [start, end): on piece edges, a value either side of them, cutting vectors (1024 values) at
  // both ends, one piece plus one value, the page's tail.
  const ranges = [
    [P - 1, P + 1],
    [P, 2 * P],
    [P - 700, 3 * P + 33],
    [5, 2 * P],
    [2 * P + 1, 2 * P + P + 1],
    [c.n - P - 17, c.n],
    [0, P + 1],
  ];
  test.each(ranges)('range [%i, %i) equals the slice of the whole page', (start, end) => {
    const full = fullDecode(c);
    const page = readBytes(alpDir, c.file);
    const { backing, out } = guardedOut(Type, end - start);
    const got = alp.decodeInto(page, out, { start, end });
    expect(got.length).toBe(end - start);
    expectSameBytes(bytesOf(got), bytesOf(full.subarray(start, end)), `decodeInto [${start}, ${end})`);
    expectMarkedOutside(backing, Type.BYTES_PER_ELEMENT, end - start);
    expectSameBytes(bytesOf(alp.decode(page, { dtype, start, end })), bytesOf(full.subarray(start, end)), `decode [${start}, ${end})`);
  });

  test('from a page read once into wasm memory (wasmInput): the same values, the page unchanged', () => {
    const input = readIntoWasm(c.file);
    const { out } = guardedOut(Type, c.n);
    expect(sha256(bytesOf(alp.decodeInto(input.bytes, out)))).toBe(c.sha256_of_expected);
    expect(sha256(bytesOf(alp.decode(input.bytes, dtype)))).toBe(c.sha256_of_expected);
    const [start, end] = [P - 3, 4 * P + 5];
    expectSameBytes(bytesOf(alp.decodeInto(input.bytes, out, { start, end })), bytesOf(fullDecode(c).subarray(start, end)), 'range');
    expect(sha256(input.bytes)).toBe(c.sha256_of_page);
  });

  test('alp.open: decode and decodeRange across pieces, from the reader\'s one copy', () => {
    const reader = alp.open(readBytes(alpDir, c.file), dtype);
    try {
      expect(sha256(bytesOf(reader.decode()))).toBe(c.sha256_of_expected);
      const [start, end] = [2 * P - 513, 3 * P + 2];
      expectSameBytes(bytesOf(reader.decodeRange(start, end)), bytesOf(fullDecode(c).subarray(start, end)), 'reader range');
    } finally {
      reader.close();
    }
  });

  // A vector in the third piece or later, with exceptions, and where its fields lie.
  function laterVector(page) {
    const info = alp.inspect(page, dtype);
    const v = info.vectors.find((x) => x.firstValue >= 2 * P + 5 * info.vectorSize && x.exceptions > 0);
    const forBytes = dtype === 'f32' ? 5 : 9;
    const packedBytes = Math.ceil((v.numValues * v.bitWidth) / 8);
    return { v, bitWidthAt: v.offset + 4 + forBytes - 1, positionsAt: v.offset + 4 + forBytes + packedBytes };
  }

  const damages = [
    ['an exception position outside its vector', (page, at) => page.set([0xff, 0xff], at.positionsAt), (v) => `ALP vector ${v.index}: exception 0 position 65535 is outside the vector's ${v.numValues} values`],
    ['a bit width too large', (page, at) => (page[at.bitWidthAt] = dtype === 'f32' ? 33 : 65), (v) => `ALP vector ${v.index}: bit width ${dtype === 'f32' ? 33 : 65} exceeds`],
  ];
  test.each(damages)('%s in a later piece: decodeInto names the vector and writes nothing', (_what, damage, message) => {
    const page = readBytes(alpDir, c.file);
    const at = laterVector(page);
    damage(page, at);
    const out = new Type(c.n).fill(3);
    for (const [start, end] of [[0, c.n], [P - 10, at.v.firstValue + 1]]) {
      const err = thrown(() => alp.decodeInto(page, out, { start, end }));
      expect(err).toBeInstanceOf(AlpError);
      expect(err.code).toBe(CODES.BAD_DATA);
      expect(err.message).toContain(message(at.v));
      expect(out.every((x) => x === 3)).toBe(true);
    }
    // A range that stops before the damaged vector decodes.
    const before = alp.decodeInto(page, out, { start: 0, end: at.v.firstValue });
    expectSameBytes(bytesOf(before), bytesOf(fullDecode(c).subarray(0, at.v.firstValue)), 'before the damage');
    // decode (a fresh array) and decodeView refuse it alike.
    for (const call of [() => alp.decode(page, dtype), () => alp.decodeView(page, dtype)]) {
      const err = thrown(call);
      expect(err).toBeInstanceOf(AlpError);
      expect(err.message).toContain(message(at.v));
    }
    // The same damage in a page read into wasm memory.
    const input = wasmInput('alp', page.length);
    live.push(input);
    input.bytes.set(page);
    const out2 = new Type(c.n).fill(4);
    expect(thrown(() => alp.decodeInto(input.bytes, out2)).message).toContain(message(at.v));
    expect(out2.every((x) => x === 4)).toBe(true);
  });
});

test('a damaged page claiming 2^30 values: every call names its first bad vector (checked before the output is allocated)', () => {
  // Draft header (version 1, mode 0, encoding 0, log vector size 15, 2^30 values): 32768 vectors,
  // whose offset and metadata bytes (17 each for f64, 13 for f32) are there, but every offset is 0.
  const page = new Uint8Array(8 + 32768 * 17);
  page.set([1, 0, 0, 15]);
  new DataView(page.buffer).setUint32(4, 2 ** 30, true);
  for (const call of [() => alp.decode(page, 'f32'), () => alp.decodeInto(page, new Float32Array(10)), () => alp.open(page, 'f64').decode()]) {
    const err = thrown(call);
    expect(err).toBeInstanceOf(AlpError);
    expect(err.code).toBe(CODES.BAD_DATA);
    expect(err.message).toMatch(/^ALP vector 0: offset 0 points into the offset array/);
  }
});

// The corpus values re-encoded with the largest vectors (2^15 values, as large as a f64 piece's
// alignment allows) and the smallest (8): pieces still end on vector edges, ranges cut vectors
// inside pieces.
test.each([
  [15, 1 << 19, [[(1 << 18) - 100, (1 << 18) + 40000], [12345, (1 << 19) - 7]]],
  [3, 300000, [[(1 << 18) - 3, (1 << 18) + 5], [1, 299999]]],
])('f32 pages of log vector size %i: whole and ranges across pieces', (logVectorSize, n, ranges) => {
  const values = fullDecode(big[0]).subarray(0, n);
  const page = alp.encode(values, { logVectorSize });
  expect(alp.inspect(page, 'f32').logVectorSize).toBe(logVectorSize);
  const out = new Float32Array(n);
  expectSameBytes(bytesOf(alp.decodeInto(page, out)), bytesOf(values), 'whole');
  for (const [start, end] of ranges) {
    expectSameBytes(bytesOf(alp.decodeInto(page, out, { start, end })), bytesOf(values.subarray(start, end)), `[${start}, ${end})`);
  }
});
