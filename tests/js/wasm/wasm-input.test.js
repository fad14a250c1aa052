// wasmInput(): compressed bytes written once into a format's wasm memory are decoded where they lie
// (no second copy), with the same values as from JS memory; other views of wasm memory are copied.
import { afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import path from 'node:path';
import { alp, init, pco, wasmInput } from '../../../js/index.js';
import { getModule } from '../../../js/wasm/load.js';
import { bytesOf, corpusRoot, expectSameBytes, pcoDir, readBytes, readJson } from '../helpers/corpus.js';

const alpDir = path.join(corpusRoot, 'alp');

beforeAll(() => init());

// Records the sizes malloc is asked for while fn runs: an input copied in costs one of its length.
function mallocSizes(format, fn) {
  const mod = getModule(format);
  const malloc = mod._malloc;
  const sizes = [];
  mod._malloc = (n) => {
    sizes.push(n);
    return malloc(n);
  };
  try {
    return { result: fn(), sizes };
  } finally {
    mod._malloc = malloc;
  }
}

function filled(format, bytes) {
  const input = wasmInput(format, bytes.length);
  input.bytes.set(bytes);
  return input;
}

const live = [];
afterEach(() => {
  for (const x of live.splice(0)) x.release();
});

describe('Pco', () => {
  const file = 'random_bits_f64_n20000.pco';
  const pcoCase = readJson(pcoDir, 'manifest.json').find((c) => c.file === file);

  test('decodes from a wasm input in place, bit-exact', () => {
    const bytes = readBytes(pcoDir, file);
    const input = filled('pco', bytes);
    live.push(input);
    expect(input.bytes.buffer).toBe(getModule('pco').HEAPU8.buffer);
    const { result, sizes } = mallocSizes('pco', () => pco.decode(input.bytes));
    expect(sizes).not.toContain(bytes.length); // not copied in
    expectSameBytes(bytesOf(result), readBytes(pcoDir, pcoCase.expected), file);
    // The same bytes from JS memory are copied in, and decode to the same values.
    const copied = mallocSizes('pco', () => pco.decode(bytes));
    expect(copied.sizes).toContain(bytes.length);
    expectSameBytes(bytesOf(copied.result), bytesOf(result), file);
  });

  test('a subarray of a wasm input is read in place too', () => {
    const bytes = readBytes(pcoDir, file);
    const input = wasmInput('pco', bytes.length + 100);
    live.push(input);
    input.bytes.set(bytes, 37);
    const page = input.bytes.subarray(37, 37 + bytes.length);
    const { result, sizes } = mallocSizes('pco', () => pco.decodeInto(page, new Float64Array(pcoCase.n)));
    expect(sizes).not.toContain(bytes.length);
    expectSameBytes(bytesOf(result), readBytes(pcoDir, pcoCase.expected), file);
  });

  test('a view of wasm memory that is not a wasm input (a decoded view) is copied, not trusted', () => {
    const bytes = readBytes(pcoDir, file);
    const input = filled('pco', bytes);
    // Bytes that live in wasm memory but were not handed out by wasmInput().
    const view = pco.decodeView(input.bytes);
    live.push(input, view);
    const raw = new Uint8Array(view.values.buffer, view.values.byteOffset, 1000);
    expect(raw.buffer).toBe(getModule('pco').HEAPU8.buffer);
    const { sizes } = mallocSizes('pco', () => {
      try {
        pco.decode(raw);
      } catch {
        // decoded f64s are not a Pco file: only whether it was copied matters here
      }
    });
    expect(sizes).toContain(1000);
  });

  test('input.bytes is re-created after memory growth and stays in place', () => {
    const bytes = readBytes(pcoDir, file);
    const input = filled('pco', bytes);
    live.push(input);
    const before = input.bytes;
    const mod = getModule('pco');
    const heap = mod.HEAPU8.length;
    const big = mod._malloc(heap); // forces growth
    try {
      expect(mod.HEAPU8.length).toBeGreaterThan(heap);
      expect(before.length).toBe(0); // detached
      expect(input.bytes.length).toBe(bytes.length);
      expectSameBytes(input.bytes, bytes, 'input after growth');
      const { result, sizes } = mallocSizes('pco', () => pco.decode(input.bytes));
      expect(sizes).not.toContain(bytes.length);
      expectSameBytes(bytesOf(result), readBytes(pcoDir, pcoCase.expected), file);
    } finally {
      mod._free(big);
    }
  });

  test('release() frees it once; bytes then throws', () => {
    const input = wasmInput('pco', 64);
    expect(input.byteLength).toBe(64);
    expect(input.format).toBe('pco');
    input.release();
    input.release();
    expect(input.released).toBe(true);
    expect(() => input.bytes).toThrow(/released/);
    // The freed block is the next allocation of that size.
    const again = wasmInput('pco', 64);
    live.push(again);
    expect(again.bytes.length).toBe(64);
  });

  test('bad lengths are RangeErrors', () => {
    expect(() => wasmInput('pco', -1)).toThrow(RangeError);
    expect(() => wasmInput('pco', 1.5)).toThrow(RangeError);
    expect(() => wasmInput('pco', '8')).toThrow(RangeError);
  });
});

describe('ALP', () => {
  const c = readJson(alpDir, 'manifest.json').find((x) => x.name === 'f32_bw32_n2048' || x.file === 'f32_bw32_n2048.alp');

  test('decodeView from a wasm input in place, bit-exact', () => {
    const bytes = readBytes(alpDir, c.file);
    const input = filled('alp', bytes);
    live.push(input);
    const { result: view, sizes } = mallocSizes('alp', () => alp.decodeView(input.bytes, 'f32'));
    live.push(view);
    expect(sizes).not.toContain(bytes.length);
    expectSameBytes(bytesOf(view.values), readBytes(alpDir, c.expected), c.file);
  });

  test('an input of one format is copied by another format (separate memories)', () => {
    const bytes = readBytes(alpDir, c.file);
    const input = filled('pco', bytes);
    live.push(input);
    const { result, sizes } = mallocSizes('alp', () => alp.decode(input.bytes, 'f32'));
    expect(sizes).toContain(bytes.length);
    expectSameBytes(bytesOf(result), readBytes(alpDir, c.expected), c.file);
  });
});
