// The I/O layer under real network faults (Node): the fault server (io-fault-server.js) serves
// the large corpus matrix on 127.0.0.1 with a 10 % fault rate; 500 random column slices read
// through BPCells end either exact (value by value against what BPCells wrote) or with a clear
// error, never with wrong values. Prints the figures.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import path from 'node:path';
import * as bpcells from '../../../js/bpcells/index.js';
import { init } from '../../../js/index.js';
import { LARGE, bytes, cases, setDir } from '../helpers/bpcells-corpus.js';
import { startFaultServer } from './io-fault-server.js';
import { formatFigures, isClearError, runFaultReads } from './io-fault-run.js';

const c = cases.find((x) => x.name === LARGE);
let server;
let expected;

beforeAll(async () => {
  await init();
  server = await startFaultServer({ root: path.join(setDir, c.dir), rate: 0.1, seed: 20261123, slowMs: 700 });
  const dir = path.join(setDir, c.expected);
  const u32 = (f) => new Uint32Array(bytes(path.join(dir, f)).buffer);
  expected = {
    idxptr: Float64Array.from(new BigUint64Array(bytes(path.join(dir, 'idxptr.u64')).buffer), Number),
    index: u32('index.u32'),
    val: u32('val.u32'),
  };
});

afterAll(async () => {
  await server?.close();
});

test('500 random slices at a 10 % fault rate: exact or a clear error, never wrong values', async () => {
  const options = { prefetchBytes: 0, cacheBytes: 0, retries: 3, retryDelay: 2, maxRetryDelay: 50, timeout: 400 };
  const fig = await runFaultReads({
    open: () => bpcells.open(`${server.base}/data/`, options),
    expected,
    reads: 500,
    seed: 11,
    workers: 4,
    reopenEvery: 25,
    timeLimitMs: 100000,
  });
  console.log(formatFigures('Node, fault rate 10 %', fig, server.stats.injected));
  expect(fig.timedOut).toBe(false);
  expect(fig.reads).toBe(500);
  expect(fig.wrongValues).toBe(0);
  expect(fig.unclear).toEqual([]);
  expect(fig.exact + fig.failed).toBe(500);
  // The run met every kind of fault, and retries turned most of them into exact reads.
  for (const [kind, n] of Object.entries(server.stats.injected)) expect([kind, n > 0]).toEqual([kind, true]);
  expect(fig.retries).toBeGreaterThan(0);
  expect(fig.exact).toBeGreaterThan(fig.failed);
});

test('a clear error is a BpcellsError wrapping the IoError, with the file and a code', async () => {
  const err = await bpcells.open(`${server.base}/data/no_such_dir/`, { retries: 0 }).then(
    () => null,
    (e) => e,
  );
  expect(err).toBeInstanceOf(bpcells.BpcellsError);
  expect(isClearError(err)).toBe(true);
  expect(err.file).toBe('version');
  expect(err.code).toBe('ERR_NOT_FOUND');
  expect(err.cause.file).toBe('version');
  expect(err.message).toBe(`bpcells: version: file missing (HTTP 404 Not Found at ${server.base}/data/no_such_dir/version)`);
});
