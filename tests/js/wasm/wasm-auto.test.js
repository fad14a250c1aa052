// The loader with default options, plus the helpers every format wrapper uses.
import { expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildInfo, init, simdSupported, DTYPES } from '../../../js/index.js';
import { viewAs } from '../../../js/dtypes.js';
import { withInputs } from '../../../js/wasm/inputs.js';
import { getModule } from '../../../js/wasm/load.js';
import { projectRoot } from '../helpers/corpus.js';

const pkg = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8'));

test('init() picks the SIMD build where the engine supports it; concurrent calls share one load', async () => {
  expect(() => getModule('pco')).toThrow('numdecode: await init() before decoding pco');
  const calls = [init(), init({ simd: 'auto' }), init()];
  await Promise.all(calls);
  const mod = getModule('pco');
  await init();
  expect(getModule('pco')).toBe(mod);
  expect(simdSupported()).toBe(true); // Node 20 has wasm SIMD
  expect(buildInfo()).toEqual({ simd: true, version: pkg.version });
});

test('asking for the other build after loading is an error', async () => {
  await init();
  await expect(init({ simd: false })).rejects.toThrow(/SIMD build is already loaded/);
  // init() resolves to the API itself.
  const api = await init({ simd: true });
  expect(typeof api.pco.decode).toBe('function');
  expect(api.buildInfo().simd).toBe(true);
  await expect(init({ simd: true, wasmUrll: 'x' })).rejects.toThrow(/unknown option "wasmUrll"/);
  await expect(init({ wasmBinary: new Uint8Array(8), wasmUrl: 'x' })).rejects.toThrow(/one of wasmBinary, module, wasmUrl/);
});

test('withInputs copies inputs into the heap and frees them, also when fn throws', async () => {
  await init();
  const mod = getModule('pco');
  const a = new Uint8Array([1, 2, 3, 250]);
  const seen = withInputs('pco', [a, new Uint8Array(0)], (ptrA, lenA, ptrB, lenB) => {
    expect(lenA).toBe(4);
    expect(lenB).toBe(0);
    expect(ptrB).not.toBe(0);
    expect(Array.from(mod.HEAPU8.subarray(ptrA, ptrA + lenA))).toEqual([1, 2, 3, 250]);
    return ptrA;
  });
  // The allocator hands the freed block out again: nothing was kept.
  expect(() =>
    withInputs('pco', [a], (ptr) => {
      expect(ptr).toBe(seen);
      throw new Error('boom');
    }),
  ).toThrow('boom');
  withInputs('pco', [a], (ptr) => expect(ptr).toBe(seen));
});

test('viewAs gives the typed array of each dtype over little-endian bytes', () => {
  const bytes = new Uint8Array([0x00, 0x3c, 0x00, 0xc0, 0x01, 0x00, 0x00, 0x80]);
  expect(Array.from(viewAs('u8', bytes))).toEqual([0, 0x3c, 0, 0xc0, 1, 0, 0, 0x80]);
  expect(Array.from(viewAs('i8', bytes))).toEqual([0, 60, 0, -64, 1, 0, 0, -128]);
  expect(Array.from(viewAs('u16', bytes))).toEqual([0x3c00, 0xc000, 1, 0x8000]);
  expect(Array.from(viewAs('f16', bytes))).toEqual([0x3c00, 0xc000, 1, 0x8000]); // 1.0, -2.0 as bits
  expect(Array.from(viewAs('i16', bytes))).toEqual([0x3c00, -0x4000, 1, -0x8000]);
  expect(Array.from(viewAs('u32', bytes))).toEqual([0xc0003c00, 0x80000001]);
  expect(Array.from(viewAs('i32', bytes))).toEqual([0xc0003c00 | 0, 0x80000001 | 0]);
  expect(Array.from(viewAs('f32', new Uint8Array([0, 0, 0x80, 0x3f])))).toEqual([1]);
  expect(Array.from(viewAs('u64', bytes))).toEqual([0x80000001c0003c00n]);
  expect(Array.from(viewAs('i64', bytes))).toEqual([0x80000001c0003c00n - 2n ** 64n]);
  expect(Array.from(viewAs('f64', new Uint8Array([0, 0, 0, 0, 0, 0, 0xf0, 0x3f])))).toEqual([1]);
  expect(DTYPES).toEqual(['u8', 'i8', 'u16', 'i16', 'f16', 'u32', 'i32', 'f32', 'u64', 'i64', 'f64']);
});

test('viewAs copies misaligned input and rejects partial values and unknown dtypes', () => {
  const backing = new Uint8Array([9, 1, 0, 0, 0, 2, 0, 0, 0]);
  const misaligned = backing.subarray(1);
  const view = viewAs('u32', misaligned);
  expect(Array.from(view)).toEqual([1, 2]);
  expect(view.byteOffset % 4).toBe(0);
  expect(() => viewAs('u32', new Uint8Array(6))).toThrow('6 bytes is not a whole number of u32 values');
  expect(() => viewAs('f128', new Uint8Array(16))).toThrow(/unknown dtype "f128"/);
});
