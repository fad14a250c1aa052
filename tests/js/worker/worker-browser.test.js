// numdecode/worker in headless Chromium: module Web Workers decode corpus files, results come back
// transferred and bit-exact.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { pcoCases, pcoDir, readBytes, sha256, expectSameBytes } from '../helpers/corpus.js';
import { openBrowser } from '../helpers/chromium.js';

const cases = pcoCases().filter((c) => c.format === 'standalone');
let browser;

beforeAll(async () => {
  browser = await openBrowser();
  await browser.page.goto(`${browser.base}/tests/js/zarr/zarr-browser.html`);
  await browser.page.waitForFunction(() => window.pageReady === true, null, { timeout: 30000 });
});

afterAll(async () => {
  await browser?.close();
});

test('a pool of Web Workers decodes corpus files bit-exactly, inputs and outputs transferred', async () => {
  const picked = [
    ...cases.filter((c) => c.name.startsWith('classic_')),
    ...['multichunk_i32_4chunks', 'lookback_i64_period37', 'special_f64_classic', 'bench_u32_random_1500k'].map((n) =>
      cases.find((c) => c.name === n),
    ),
  ];
  const out = await browser.page.evaluate(([names, size]) => window.decodeInWorkers(names, size), [
    picked.map((c) => c.name),
    2,
  ]);
  expect(out.size).toBe(2);
  expect(out.stats).toMatchObject({ completed: picked.length, failed: 0, busy: 0, queued: 0 });
  expect(out.detachedInputs).toBe(true);
  const typeOf = { u8: 'Uint8Array', i8: 'Int8Array', u16: 'Uint16Array', i16: 'Int16Array', f16: 'Uint16Array',
    u32: 'Uint32Array', i32: 'Int32Array', f32: 'Float32Array', u64: 'BigUint64Array', i64: 'BigInt64Array', f64: 'Float64Array' };
  for (const [i, c] of picked.entries()) {
    const bytes = new Uint8Array(Buffer.from(out.results[i].base64, 'base64'));
    expect(out.results[i].type).toBe(typeOf[c.dtype]);
    if (c.expected === null) expect(sha256(bytes)).toBe(c.sha256_of_expected);
    else expectSameBytes(bytes, readBytes(pcoDir, c.expected), `${c.name} (browser worker)`);
  }
  expect(browser.pageErrors).toEqual([]);
});

test('a worker that dies is replaced; its job rejects', async () => {
  const out = await browser.page.evaluate(() => window.workerCrashCheck('bench_f64_sensor_2m', 'classic_i16_n1000'));
  expect(out.lost).toMatch(/the worker died/);
  expectSameBytes(new Uint8Array(Buffer.from(out.base64, 'base64')), readBytes(pcoDir, 'classic_i16_n1000.bin'), 'after a crash');
  expect(out.stats).toMatchObject({ size: 1, failed: 1 });
  expect(browser.pageErrors).toEqual([]);
});
