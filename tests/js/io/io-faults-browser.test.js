// The I/O layer in headless Chromium: BPCells reads random slices of the large corpus matrix from
// the fault server (10 % faults, same origin, so If-Range is sent), and reads across origins with
// the CORS headers exposed, hidden, or missing. Every server listens on 127.0.0.1.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import path from 'node:path';
import { createStaticServer } from '../../../scripts/serve.mjs';
import { LARGE, cases, setDir } from '../helpers/bpcells-corpus.js';
import { corpusRoot, projectRoot } from '../helpers/corpus.js';
import { startFaultServer } from './io-fault-server.js';
import { formatFigures } from './io-fault-run.js';
import { chromiumAvailable, openBrowser } from '../helpers/chromium.js';

const c = cases.find((x) => x.name === LARGE);
const root = path.join(setDir, c.dir);
const expectedDir = `/corpus/bpcells/${c.expected}`;
const servers = {};
let browser;

const maybe = chromiumAvailable ? test : test.skip;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  const statics = createStaticServer({ mounts: [['/', projectRoot], ['/corpus/', corpusRoot]] });
  const fallback = statics.listeners('request')[0];
  servers.faulty = await startFaultServer({ root, rate: 0.1, seed: 424242, slowMs: 900, fallback });
  servers.expose = await startFaultServer({ root, rate: 0, cors: 'expose' });
  servers.hidden = await startFaultServer({ root, rate: 0, cors: 'hidden' });
  servers.none = await startFaultServer({ root, rate: 0, cors: 'none' });
  browser = await openBrowser();
  await browser.page.goto(`${servers.faulty.base}/tests/js/io/io-faults-browser.html`);
  await browser.page.waitForFunction(() => window.pageReady === true, null, { timeout: 30000 });
});

afterAll(async () => {
  await browser?.close();
  for (const s of Object.values(servers)) await s.close();
});

maybe('150 random slices at a 10 % fault rate: exact or a clear error, never wrong values', async () => {
  const options = { prefetchBytes: 0, cacheBytes: 0, retries: 3, retryDelay: 2, maxRetryDelay: 50, timeout: 600 };
  const fig = await browser.page.evaluate((args) => window.runFaults(args), {
    base: servers.faulty.base,
    expectedDir,
    reads: 150,
    seed: 3,
    options,
  });
  console.log(formatFigures('Chromium, fault rate 10 %', fig, servers.faulty.stats.injected));
  expect(fig.timedOut).toBe(false);
  expect(fig.reads).toBe(150);
  expect(fig.wrongValues).toBe(0);
  expect(fig.unclear).toEqual([]);
  expect(fig.exact + fig.failed).toBe(150);
  expect(fig.retries).toBeGreaterThan(0);
  expect(fig.exact).toBeGreaterThan(fig.failed);
  expect(browser.pageErrors).toEqual([]);
});

const columns = [[0, 1], [1234, 1], [2999, 1], [100, 4]];

// A small idxptr (<= 64 KiB) is read whole at open (issue 27), so a column asks only for its index and values.
maybe('cross-origin with the headers exposed: exact, one column costs 2 requests after open', async () => {
  const out = await browser.page.evaluate((args) => window.crossOrigin(args), { base: servers.expose.base, expectedDir, columns: [[1234, 1]] });
  expect(out.error).toBeNull();
  expect(out.exact).toBe(1);
  expect(out.stats.requests - out.opened.requests).toBe(2);
  expect(Object.keys(out.stats.files).filter((f) => out.stats.files[f].requests > (out.opened.files[f]?.requests ?? 0)).sort()).toEqual([
    'index_data',
    'val_data',
  ]);
  expect(out.stats.retries).toBe(0);
  const all = await browser.page.evaluate((args) => window.crossOrigin(args), { base: servers.expose.base, expectedDir, columns });
  expect(all).toMatchObject({ error: null, exact: columns.length });
});

maybe('cross-origin with Content-Range and ETag hidden: still exact (lengths checked)', async () => {
  const out = await browser.page.evaluate((args) => window.crossOrigin(args), { base: servers.hidden.base, expectedDir, columns });
  expect(out).toMatchObject({ error: null, exact: columns.length });
  const size = await browser.page.evaluate((u) => window.sizeWithoutHead(u), `${servers.hidden.base}/data/val_data`);
  expect(size.error).toMatchObject({ name: 'IoError', code: 'ERR_NETWORK', file: `${servers.hidden.base}/data/val_data` });
  expect(size.error.message).toContain('Access-Control-Expose-Headers: Content-Range, Content-Length, ETag, Accept-Ranges');
  const exposed = await browser.page.evaluate((u) => window.sizeWithoutHead(u), `${servers.expose.base}/data/val_data`);
  expect(exposed).toEqual({ size: 3019560 });
});

maybe('a Blob has readSync inside a Worker (FileReaderSync) and not on the main thread', async () => {
  const out = await browser.page.evaluate(() => window.blobInWorker());
  expect(out.error).toBeUndefined();
  expect(out.hasReadSync).toBe(true);
  expect(out.mainThreadReadSync).toBe('undefined');
  expect(out.sync).toEqual(out.bytes.slice(3, 11));
  expect(out.async).toEqual(out.bytes.slice(60, 64));
  expect(out.past).toMatchObject({ name: 'IoError', code: 'ERR_BAD_DATA' });
  expect(out.past.message).toMatch(/needs bytes \[0, 65\) but the file has only 64 bytes/);
  expect(out.stats).toMatchObject({ requests: 2, bytes: 12, retries: 0 });
});

maybe('cross-origin without CORS headers: a clear error that says so', async () => {
  const out = await browser.page.evaluate((args) => window.crossOrigin(args), { base: servers.none.base, expectedDir, columns });
  expect(out.error).toMatchObject({ name: 'BpcellsError', code: 'ERR_NETWORK', file: 'version', cause: 'IoError' });
  expect(out.error.message).toMatch(/^bpcells: version: HTTP request failed: .*cross-origin: the server must send Access-Control-Allow-Origin/);
});
