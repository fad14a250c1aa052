// A trap in a module (a WebAssembly.RuntimeError) leaves its stack pointer and heap where the trap
// left them, and each trap leaks more: once enough had piled up, every later call of the Pco
// encoder failed with "memory access out of bounds" (2 028 traps of 1 M values, found by an
// adversarial run of the encoder). After a trap the module is replaced by a fresh instance.
import { beforeAll, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AlpError, alp, init } from '../../../js/index.js';
import { binding, wasmCaller } from '../../../js/wasm/call.js';
import { getModule } from '../../../js/wasm/load.js';
import { corpusRoot } from '../helpers/corpus.js';

beforeAll(() => init({ formats: ['alp'] }));

test('a real trap (an address past the memory) is a format error, and the module is replaced by a fresh one that decodes exactly', async () => {
  const call = wasmCaller('alp', AlpError);
  const before = getModule('alp');
  const past = before.HEAPU8.length + 65536; // an input "at" an address the memory does not have
  let caught;
  try {
    call([], () => binding('alp', '_numdecode_alp_inspect')(past, 4096, 0));
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(AlpError);
  expect(caught.message).toMatch(/out of bounds/);
  for (let i = 0; i < 300 && getModule('alp') === before; i++) await new Promise((r) => setTimeout(r, 10));
  expect(getModule('alp')).not.toBe(before);
  const file = (rel) => new Uint8Array(readFileSync(path.join(corpusRoot, rel)));
  const want = file('alp/f64_sensor1_n3000.bin');
  expect(Buffer.from(alp.decode(file('alp/f64_sensor1_n3000.alp'), 'f64').buffer).equals(Buffer.from(want))).toBe(true);
});

test('a trap while a view holds the module: the old module stays (the view reads exactly) until the view is released, then a fresh one takes its place', async () => {
  const file = (rel) => new Uint8Array(readFileSync(path.join(corpusRoot, rel)));
  const want = file('alp/f64_sensor1_n3000.bin');
  const view = alp.decodeView(file('alp/f64_sensor1_n3000.alp'), 'f64');
  const before = getModule('alp');
  const call = wasmCaller('alp', AlpError);
  expect(() => call([], () => binding('alp', '_numdecode_alp_inspect')(before.HEAPU8.length + 65536, 4096, 0))).toThrow(/out of bounds/);
  // The swap would detach the view's values: it waits.
  await new Promise((r) => setTimeout(r, 200));
  expect(getModule('alp')).toBe(before);
  expect(Buffer.from(view.values.buffer, view.values.byteOffset, view.values.byteLength).equals(Buffer.from(want))).toBe(true);
  view.release();
  for (let i = 0; i < 300 && getModule('alp') === before; i++) await new Promise((r) => setTimeout(r, 10));
  expect(getModule('alp')).not.toBe(before);
  expect(Buffer.from(alp.decode(file('alp/f64_sensor1_n3000.alp'), 'f64').buffer).equals(Buffer.from(want))).toBe(true);
});
