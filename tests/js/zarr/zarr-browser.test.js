// numdecode/zarr in headless Chromium: a page that imports zarrita and numdecode/zarr through an
// import map (no bundler) reads the same store as zarr.test.js over HTTP, on the main thread and
// with chunks decoded in Web Workers.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openBrowser } from '../helpers/chromium.js';
import { buildStore, expectSameValues } from '../helpers/zarr-store.js';

let dir;
let store;
let browser;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'numdecode-zarr-browser-'));
  store = buildStore(dir);
  browser = await openBrowser([['/store/', dir]]);
  await browser.page.goto(`${browser.base}/tests/js/zarr/zarr-browser.html`);
  await browser.page.waitForFunction(() => window.pageReady === true, null, { timeout: 30000 });
});

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function expectStoreRead(result) {
  expect(result.arrays.map((a) => a.path)).toEqual(store.arrays.map((a) => a.path));
  for (const [i, got] of result.arrays.entries()) {
    const want = store.arrays[i];
    expect(got.skipped).toBeUndefined(); // Chromium has Float16Array: the float16 array is read too
    expect({ dtype: got.dtype, shape: got.shape }).toEqual({ dtype: want.dataType, shape: want.shape });
    expectSameValues(new Uint8Array(Buffer.from(got.base64, 'base64')), want.expected, want.dataType, `${want.path} (browser)`);
  }
  expect(result.arrays.find((a) => a.path === 'v3/classic_f16').typedArray).toBe('Float16Array');
  for (const [i, f] of result.failures.entries()) {
    expect(f.path).toBe(store.failures[i].path);
    expect(f.error).toContain(store.failures[i].message);
  }
}

test('zarrita + numdecode/zarr read every array on the main thread', async () => {
  const result = await browser.page.evaluate(() => window.readZarrStore({ workers: 0 }));
  expect(result.float16Array).toBe(true);
  expect(result.buildInfo.simd).toBe(true);
  expectStoreRead(result);
  expect(browser.pageErrors).toEqual([]);
});

test('the same with chunks decoded in a pool of two Web Workers', async () => {
  const result = await browser.page.evaluate(() => window.readZarrStore({ workers: 2 }));
  expectStoreRead(result);
  // Every chunk that exists went through the workers (11 + 7 + 1 + 2 + 2 + 1 + 2 chunks).
  expect(result.poolStats.completed).toBeGreaterThanOrEqual(26);
  expect(result.poolStats.size).toBe(2);
  expect(browser.pageErrors).toEqual([]);
});
