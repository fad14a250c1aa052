// pco.decodeView: values read in place from wasm memory until release().
import { beforeAll, describe, expect, test } from '@jest/globals';
import { init, pco } from '../../../js/index.js';
import { getModule } from '../../../js/wasm/load.js';
import { bytesOf, concatBytes, expectSameBytes, pcoCases, pcoCorruptCases, pcoDir, readBytes, sha256 } from '../helpers/corpus.js';

const standalone = pcoCases().filter((c) => c.format === 'standalone');

beforeAll(async () => {
  await init();
});

describe('values equal the corpus', () => {
  test.each(standalone.filter((c) => c.expected !== null).map((c) => [c.name, c]))('%s', (name, c) => {
    const view = pco.decodeView(readBytes(pcoDir, c.file));
    try {
      expect(view.values.length).toBe(c.n);
      expect(view.byteLength).toBe(view.values.byteLength);
      // Same typed array class as pco.decode gives.
      expect(view.values.constructor).toBe(pco.decode(readBytes(pcoDir, c.file)).constructor);
      // The values live in wasm memory: no copy.
      expect(view.values.buffer).toBe(getModule('pco').HEAPU8.buffer);
      expectSameBytes(bytesOf(view.values), readBytes(pcoDir, c.expected), name);
    } finally {
      view.release();
    }
  });

  test('a large file (SHA-256 of the values)', () => {
    const c = standalone.find((x) => x.name === 'bench_f64_sensor_2m');
    const view = pco.decodeView(readBytes(pcoDir, c.file));
    expect(view.dtype).toBe('f64');
    expect(sha256(bytesOf(view.values))).toBe(c.sha256_of_expected);
    view.release();
  });

  test('a file without chunks gives an empty array', () => {
    const view = pco.decodeView(readBytes(pcoDir, 'empty_f32.pco'));
    expect(view.values.length).toBe(0);
    view.release();
  });
});

test('release() frees the memory: the next decode of the same size reuses it', () => {
  const file = readBytes(pcoDir, 'random_bits_f64_n20000.pco');
  const before = pco.viewStats();
  const first = pco.decodeView(file);
  const offset = first.values.byteOffset;
  expect(pco.viewStats()).toEqual({ live: before.live + 1, bytes: before.bytes + 160000 });
  first.release();
  expect(pco.viewStats()).toEqual(before);
  const second = pco.decodeView(file);
  expect(second.values.byteOffset).toBe(offset);
  second.release();
});

test('decode-release cycles do not grow wasm memory', () => {
  const file = readBytes(pcoDir, 'bench_i64_timestamps_2m.pco'); // 16 MB of values
  pco.decodeView(file).release(); // the first decode may grow memory once
  const heapSize = getModule('pco').HEAPU8.length;
  for (let i = 0; i < 8; i++) {
    const view = pco.decodeView(file);
    expect(view.values.length).toBe(2_000_000);
    view.release();
  }
  expect(getModule('pco').HEAPU8.length).toBe(heapSize);
  expect(pco.viewStats().live).toBe(0);
});

test('a released view refuses to give its values; release twice is harmless', () => {
  const view = pco.decodeView(readBytes(pcoDir, 'classic_u32_n1000.pco'));
  expect(view.released).toBe(false);
  view.release();
  expect(view.released).toBe(true);
  expect(() => view.values).toThrow(/the view was released/);
  const live = pco.viewStats().live;
  view.release();
  expect(pco.viewStats().live).toBe(live);
});

test('memory growth detaches arrays taken earlier; view.values gives a fresh, correct one', () => {
  const small = readBytes(pcoDir, 'classic_i32_n1000.pco');
  const want = readBytes(pcoDir, 'classic_i32_n1000.bin');
  const view = pco.decodeView(small);
  const early = view.values;
  // Keep decoding large files (views held) until the heap has grown.
  const big = readBytes(pcoDir, 'bench_f64_sensor_2m.pco');
  const held = [];
  const startBuffer = getModule('pco').HEAPU8.buffer;
  while (getModule('pco').HEAPU8.buffer === startBuffer && held.length < 40) held.push(pco.decodeView(big));
  expect(getModule('pco').HEAPU8.buffer).not.toBe(startBuffer);
  expect(early.length).toBe(0); // detached: the documented invalidation
  expectSameBytes(bytesOf(view.values), want, 'after growth');
  for (const v of held) v.release();
  view.release();
});

test('errors leave no view behind and the module usable', () => {
  const live = pco.viewStats().live;
  const bad = pcoCorruptCases().find((c) => c.expect === 'error');
  expect(() => pco.decodeView(readBytes(pcoDir, bad.file))).toThrow(Error);
  // Two files' chunks spliced into one (see pco-suite.js): an i32 chunk, then an f32 chunk.
  const a = readBytes(pcoDir, 'classic_i32_n1000.pco');
  const b = readBytes(pcoDir, 'classic_f32_n1000.pco');
  const [, aEnd] = pco.inspect(a).chunks[0].byteRange;
  const [bStart, bEnd] = pco.inspect(b).chunks[0].byteRange;
  const mixed = concatBytes([a.subarray(0, aEnd), b.subarray(bStart, bEnd), new Uint8Array([0])]);
  expect(() => pco.decodeView(mixed)).toThrow(/different dtypes.*decodeChunks/);
  expect(() => pco.decodeView('pco!')).toThrow(TypeError);
  // The output cap, as for decode(): 10000 i32 values are 40000 bytes.
  const constant = readBytes(pcoDir, 'const_i32_n10000.pco');
  expect(() => pco.decodeView(constant, { maxOutputBytes: 39999 })).toThrow(/output limit.*over the limit of 39999/);
  expect(() => pco.decodeView(constant, { maxOutputBytes: -1 })).toThrow(TypeError);
  const capped = pco.decodeView(constant, { maxOutputBytes: 40000 });
  expect(capped.values.length).toBe(10000);
  capped.release();
  expect(pco.viewStats().live).toBe(live);
  const view = pco.decodeView(readBytes(pcoDir, 'classic_u8_n1000.pco'));
  expectSameBytes(bytesOf(view.values), readBytes(pcoDir, 'classic_u8_n1000.bin'), 'after errors');
  view.release();
});

test('views work with `using` (Symbol.dispose) where the engine has it', () => {
  if (typeof Symbol.dispose !== 'symbol') return;
  const view = pco.decodeView(readBytes(pcoDir, 'n1_u32.pco'));
  view[Symbol.dispose]();
  expect(view.released).toBe(true);
});
