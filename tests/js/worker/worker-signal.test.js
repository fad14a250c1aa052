// Pool jobs take an AbortSignal (queued jobs are dropped, a running job's worker is replaced),
// and decodeView jobs come back as plain arrays without leaving views alive in the worker.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { CODES, NumdecodeError, init, pco } from '../../../js/index.js';
import { createWorkerPool } from '../../../js/worker/index.js';
import { pcoDir, readBytes } from '../helpers/corpus.js';
import { rejection } from '../helpers/rejection.js';

let pool;
const big = readBytes(pcoDir, 'bench_i64_timestamps_2m.pco');
const small = readBytes(pcoDir, 'classic_f64_n1000.pco');

beforeAll(async () => {
  await init();
  pool = await createWorkerPool({ size: 1 });
});
afterAll(() => pool?.terminate());

test('a signal that already fired rejects at once with ERR_ABORTED', async () => {
  const err = await rejection(pool.decodePco(small, { signal: AbortSignal.abort() }));
  expect(err).toBeInstanceOf(NumdecodeError);
  expect(err.code).toBe(CODES.ABORTED);
});

test('aborting a queued job drops it; the running one completes', async () => {
  const controller = new AbortController();
  const first = pool.decodePco(big);
  const second = pool.decodePco(small, { signal: controller.signal });
  expect(pool.stats().queued).toBe(1);
  controller.abort();
  expect((await rejection(second)).code).toBe(CODES.ABORTED);
  expect(pool.stats().queued).toBe(0);
  const values = await first;
  expect(values.length).toBe(pco.decode(big).length);
});

test('aborting a running job replaces its worker; the pool goes on decoding correctly', async () => {
  const controller = new AbortController();
  const running = pool.decodePco(big, { signal: controller.signal });
  expect(pool.stats().busy).toBe(1);
  controller.abort();
  expect((await rejection(running)).code).toBe(CODES.ABORTED);
  expect(await pool.decodePco(small)).toEqual(pco.decode(small));
});

test('a decodeView job returns {dtype, values} and releases the view inside the worker', async () => {
  const got = await pool.run({ format: 'pco', op: 'decodeView', args: [small] });
  expect(got.dtype).toBe('f64');
  expect(got.values).toEqual(pco.decode(small));
  expect(await pool.run({ format: 'pco', op: 'viewStats' })).toEqual({ live: 0, bytes: 0 });
});
