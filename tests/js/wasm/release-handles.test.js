// Readers that live across calls survive releaseMemory() (and autoReleaseMemory) replacing their
// module between two calls: an alp.open() page reader and a pco.wrapped reader and its chunks.
// Neither counts as holding the module's memory, so the swap is allowed; each then copies what it
// keeps in JS into the module of the moment. Before, both read other bytes at their old addresses.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { alp, autoReleaseMemory, init, pco, releaseMemory } from '../../../js/index.js';
import { getModule } from '../../../js/wasm/load.js';
import { corpusRoot } from '../helpers/corpus.js';

const file = (rel) => new Uint8Array(readFileSync(path.join(corpusRoot, rel)));
const bytesOf = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

beforeAll(() => init({ formats: ['alp', 'pco'] }));
afterAll(() => autoReleaseMemory(null));

test('an alp.open() page reader decodes the page exactly after releaseMemory() and autoReleaseMemory replaced the module', async () => {
  const want = file('alp/f64_sensor1_n3000.bin');
  const reader = alp.open(file('alp/f64_sensor1_n3000.alp'), 'f64');
  expect(bytesOf(reader.decode()).equals(Buffer.from(want))).toBe(true);
  expect((await releaseMemory({ formats: ['alp'] })).alp.released).toBe(true);
  expect(bytesOf(reader.decode()).equals(Buffer.from(want))).toBe(true);
  expect(bytesOf(reader.decodeRange(1000, 2000)).equals(Buffer.from(want.subarray(8000, 16000)))).toBe(true);
  // A viewer: the page stays open while other pages decode with autoRelease on.
  autoReleaseMemory(1 << 20);
  const before = getModule('alp');
  alp.decode(file('alp/f32_bench_price2_n4194304.alp'), 'f32'); // leaves the module above 1 MiB: replaced after the task
  for (let i = 0; i < 200 && getModule('alp') === before; i++) await new Promise((r) => setTimeout(r, 10));
  expect(getModule('alp')).not.toBe(before);
  autoReleaseMemory(null);
  expect(bytesOf(reader.decodeVector(1)).equals(Buffer.from(want.subarray(8 * 1024, 8 * 2048)))).toBe(true);
  reader.close();
  expect(() => reader.decode()).toThrow(/closed/);
});

test('a pco.wrapped reader and a chunk opened before releaseMemory() decode their pages exactly after it', async () => {
  const dir = 'pco';
  const man = JSON.parse(readFileSync(path.join(corpusRoot, dir, 'wrapped_f32_floatmult_pages.wrapped.json'), 'utf8'));
  const want = file(`${dir}/wrapped_f32_floatmult_pages.bin`);
  const reader = pco.wrapped.open(file(`${dir}/${man.header}`));
  const chunk = reader.chunk(file(`${dir}/${man.chunks[0].meta}`), man.dtype);
  const decodeAll = (c) => Buffer.concat(man.chunks[0].pages.map((p) => bytesOf(c.decodePage(file(`${dir}/${p.file}`), p.n))));
  expect(decodeAll(chunk).equals(Buffer.from(want.subarray(0, man.chunks[0].n * 4)))).toBe(true);
  expect((await releaseMemory({ formats: ['pco'] })).pco.released).toBe(true);
  expect(decodeAll(chunk).equals(Buffer.from(want.subarray(0, man.chunks[0].n * 4)))).toBe(true);
  const again = reader.chunk(file(`${dir}/${man.chunks[0].meta}`), man.dtype);
  expect(decodeAll(again).equals(Buffer.from(want.subarray(0, man.chunks[0].n * 4)))).toBe(true);
});

// releaseMemory() makes its fresh instance from the module already compiled (js/wasm/load.js):
// no bytes read and compiled again. When that instantiation fails (here: no memory for it), the
// error says so, not that a user's options.module is wrong, and the old module stays in use.
test('a fresh instance that cannot be made is named as such, and the module in use keeps decoding', async () => {
  const want = file('alp/f64_sensor1_n3000.bin');
  const before = getModule('alp');
  const { instantiate } = WebAssembly;
  WebAssembly.instantiate = () => Promise.reject(new RangeError('WebAssembly.Memory(): could not allocate memory'));
  try {
    await expect(releaseMemory({ formats: ['alp'] })).rejects.toMatchObject({
      message: 'numdecode: a fresh instance of the alp module failed: WebAssembly.Memory(): could not allocate memory',
    });
  } finally {
    WebAssembly.instantiate = instantiate;
  }
  expect(getModule('alp')).toBe(before);
  expect(bytesOf(alp.decode(file('alp/f64_sensor1_n3000.alp'), 'f64')).equals(Buffer.from(want))).toBe(true);
  const released = await releaseMemory({ formats: ['alp'] });
  expect(released.alp.released).toBe(true);
  expect(getModule('alp')).not.toBe(before);
  expect(bytesOf(alp.decode(file('alp/f64_sensor1_n3000.alp'), 'f64')).equals(Buffer.from(want))).toBe(true);
});
