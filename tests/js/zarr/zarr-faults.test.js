// Zarr over a faulty network (the I/O layer's fault server, tests/js/io/io-fault-server.js, serving
// the corpus' sharded store at a 10 % fault rate: resets, 5xx, 429, cut and short bodies, a wrong
// Content-Range, slow answers past the timeout, Range ignored, files replaced): random selections
// of every array end bit-identical to the local folder's read or with a clear error naming the
// store, never with wrong values. A sweep on 2026-11-29 found zarrita's FetchStore, which URLs were
// read through, decoding another chunk's values when Range was ignored.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import path from 'node:path';
import * as zarr from 'zarrita';
import { init } from '../../../js/index.js';
import { ZarrError, openArray, read, registerPcodec } from '../../../js/zarr.js';
import { corpusRoot } from '../helpers/corpus.js';
import { rng } from '../helpers/seeded-random.js';
import { startFaultServer } from '../io/io-fault-server.js';

const store = path.join(corpusRoot, 'zarr-pcodec', 'stores', 'sharded_v3.zarr');
const ARRAYS = ['/counts', '/labels', '/labels_index_start'];
const CLEAR = new Set(['ERR_NETWORK', 'ERR_CHANGED']);
let server;
const local = new Map(); // array -> opened from the folder

beforeAll(async () => {
  await init();
  registerPcodec(zarr.registry);
  server = await startFaultServer({ root: store, rate: 0.1, seed: 20261129, slowMs: 700 });
  for (const a of ARRAYS) local.set(a, await openArray(store, a));
});
afterAll(() => server?.close());

// A random box of the array: per axis a start and a length (at least 1).
function randomSelection(random, shape) {
  return shape.map((n) => {
    const start = Math.floor(random() * n);
    const length = 1 + Math.floor(random() * Math.min(n - start, 1 + n / 2));
    return zarr.slice(start, start + length);
  });
}

const bytesOf = (data) => Buffer.from(data.buffer, data.byteOffset, data.byteLength);

test('200 random selections at a 10 % fault rate: exact or a clear error, never wrong values', async () => {
  const random = rng(7);
  const options = { retries: 3, retryDelay: 2, maxRetryDelay: 50, timeout: 400 };
  const fig = { exact: 0, clear: 0, wrong: [], unclear: [] };
  const opened = new Map();
  for (let i = 0; i < 200; i++) {
    const name = ARRAYS[Math.floor(random() * ARRAYS.length)];
    const want = local.get(name);
    const selection = randomSelection(random, want.shape);
    try {
      if (!opened.has(name) || i % 20 === 0) opened.set(name, await openArray(`${server.base}/data`, name, options)); // open meets faults too
      const got = await read(opened.get(name), { selection });
      const expected = await read(want, { selection });
      if (bytesOf(got.data).equals(bytesOf(expected.data)) && got.shape.join() === expected.shape.join()) fig.exact++;
      else fig.wrong.push([name, i]);
    } catch (err) {
      opened.delete(name);
      if (err instanceof ZarrError && CLEAR.has(err.code) && err.message.includes(server.base)) fig.clear++;
      else fig.unclear.push(`${err?.name} ${err?.code}: ${err?.message}`);
    }
  }
  console.log(`zarr faults: ${JSON.stringify({ ...fig, injected: server.stats.injected, requests: server.stats.requests })}`);
  expect(fig.wrong).toEqual([]);
  expect(fig.unclear).toEqual([]);
  expect(fig.exact).toBeGreaterThan(150); // retries cure most faults
  expect(Object.values(server.stats.injected).filter((n) => n > 0).length).toBeGreaterThanOrEqual(8); // most kinds met
}, 120000);
