// Wasm memory (issue 31): a decode grows the Pco module's memory by no more than its input and
// output need (plus a bound), and releaseMemory() gives it back. Jest loads a fresh module per
// test file, so the first figure is a fresh load's.
import { beforeAll, expect, test } from '@jest/globals';
import { autoReleaseMemory, init, memoryUsage, pco, releaseMemory, CODES } from '../../../js/index.js';
import { tiledPcoFile } from '../helpers/pco-tiled.js';

const MB = 1 << 20;
let fresh;

beforeAll(async () => {
  await init({ formats: ['pco'] });
  fresh = memoryUsage().pco.bytes;
});

function expectValues(values, file) {
  const got = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  const per = file.expectedChunk.length;
  expect(got.length).toBe(per * (file.n / file.chunkValues));
  for (const i of [0, 1, Math.floor(got.length / per / 2), got.length / per - 1]) {
    expect(Buffer.from(got.subarray(i * per, (i + 1) * per)).equals(Buffer.from(file.expectedChunk))).toBe(true);
  }
}

test.each([
  ['classic_u8_n1000', 4000], // 4 M u8 values: the narrowest output, where scratch at a wider type showed most
  ['classic_u16_n1000', 3000],
])('decoding %s x %i grows memory by at most 1.2 x (input + output) + 4 MB, and releaseMemory() gives it back', async (name, times) => {
  const file = tiledPcoFile(pco.inspect, name, times);
  const before = memoryUsage().pco.bytes;
  const values = pco.decode(file.bytes);
  const growth = memoryUsage().pco.bytes - before;
  expectValues(values, file);
  expect(growth).toBeLessThanOrEqual(1.2 * (file.bytes.length + values.byteLength) + 4 * MB);
  const released = await releaseMemory({ formats: ['pco'] });
  expect(released.pco.released).toBe(true);
  expect(released.pco.after).toBeLessThanOrEqual(fresh + 8 * MB);
  expect(memoryUsage().pco.bytes).toBe(released.pco.after);
  expectValues(pco.decode(file.bytes), file); // the fresh module decodes as the old one did
});

test('a live view holds the memory: releaseMemory() refuses with ERR_IN_USE, then works once it is released', async () => {
  const file = tiledPcoFile(pco.inspect, 'classic_u8_n1000', 500);
  const view = pco.decodeView(file.bytes);
  expect(memoryUsage().pco.live).toEqual({ 'pco.decodeView': 1 });
  const err = await releaseMemory().then(() => null, (e) => e);
  expect(err?.code).toBe(CODES.IN_USE);
  expect(err.message).toMatch(/1 from pco\.decodeView/);
  expectValues(view.values, file); // still readable: nothing was replaced
  view.release();
  expect(memoryUsage().pco.live).toEqual({});
  expect((await releaseMemory()).pco.released).toBe(true);
});

test('releaseMemory() names an unknown or unloaded format', async () => {
  await expect(releaseMemory({ formats: ['alp'] })).rejects.toThrow(/"alp" is not a loaded format \(loaded: pco\)/);
  await expect(releaseMemory({ formats: 'pco' })).rejects.toThrow(TypeError);
});

test('autoReleaseMemory(bytes): after a call leaves memory above the threshold, a fresh module replaces it', async () => {
  // 12 M values: more than a fresh module's free memory, so the decode must grow it.
  const file = tiledPcoFile(pco.inspect, 'classic_u8_n1000', 12000);
  await releaseMemory();
  const base = memoryUsage().pco.bytes;
  autoReleaseMemory(base + 4 * MB);
  try {
    const values = pco.decode(file.bytes);
    expect(memoryUsage().pco.bytes).toBeGreaterThan(base + 4 * MB);
    for (let i = 0; i < 50 && memoryUsage().pco.bytes > base + 4 * MB; i++) await new Promise((r) => setTimeout(r, 20));
    expect(memoryUsage().pco.bytes).toBeLessThanOrEqual(base + 4 * MB);
    expectValues(values, file);
    expectValues(pco.decode(file.bytes), file);
  } finally {
    autoReleaseMemory(null);
  }
  expect(() => autoReleaseMemory(-1)).toThrow(RangeError);
});
