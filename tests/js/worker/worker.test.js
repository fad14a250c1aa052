// numdecode/worker in Node (worker_threads): results equal the corpus, typed arrays come back
// transferred, errors come back as Errors, and the pool spreads jobs over its workers.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { init, pco, CODES } from '../../../js/index.js';
import { createWorkerPool, planBatches, WorkerPool } from '../../../js/worker/index.js';
import * as workerEntry from '../../../js/worker/index.js';
import { bytesOf, corpusRoot, expectSameBytes, pcoCases, pcoCorruptCases, pcoDir, projectRoot, readBytes, sha256 } from '../helpers/corpus.js';

const standalone = pcoCases().filter((c) => c.format === 'standalone');
const withValues = standalone.filter((c) => c.expected !== null);
let pool;

beforeAll(async () => {
  await init();
  pool = await createWorkerPool({ size: 2 });
});

afterAll(async () => {
  await pool?.terminate();
});

test('a pool has the requested number of workers, each with numdecode loaded', () => {
  expect(pool).toBeInstanceOf(WorkerPool);
  expect(pool.size).toBe(2);
  expect(pool.buildInfo.version).toMatch(/^\d+\.\d+\.\d+/);
  expect(pool.stats()).toMatchObject({ size: 2, busy: 0, queued: 0 });
});

test('decodePcoMany: every corpus file, in input order, bit-exact', async () => {
  const files = withValues.map((c) => readBytes(pcoDir, c.file));
  const results = await pool.decodePcoMany(files);
  expect(results).toHaveLength(withValues.length);
  for (const [i, c] of withValues.entries()) {
    expectSameBytes(bytesOf(results[i]), readBytes(pcoDir, c.expected), c.name);
    // Same typed array class as on the main thread. (By name: Jest runs tests in their own realm,
    // so arrays from a worker are not instanceof the test's classes.)
    expect(results[i].constructor.name).toBe(pco.decode(files[i]).constructor.name);
  }
});

test('decodePcoMany: a second call, packed into the buffers the first sent back, is bit-exact too; a bad file names its index in the input', async () => {
  // Reversed order, so that each batch reuses a buffer that carried other files before.
  const again = [...withValues].reverse();
  const before = pool.stats();
  const results = await pool.decodePcoMany(again.map((c) => readBytes(pcoDir, c.file)));
  expect(pool.stats().completed - before.completed).toBe(again.length); // every file counts as a job
  for (const [i, c] of again.entries()) expectSameBytes(bytesOf(results[i]), readBytes(pcoDir, c.expected), c.name);
  const files = withValues.slice(0, 40).map((c) => readBytes(pcoDir, c.file));
  files.splice(29, 0, new Uint8Array([1, 2, 3]));
  const failedBefore = pool.stats().failed;
  const err = await pool.decodePcoMany(files).catch((e) => e);
  expect(err).toBeInstanceOf(Error);
  expect(pool.stats().failed - failedBefore).toBe(1);
  let here;
  try {
    pco.decode(files[29]);
  } catch (e) {
    here = e;
  }
  expect(err.code).toBe(here.code); // the same error as on this thread
  expect(err.message).toBe(here.message);
  expect(err.jobIndex).toBe(29);
  // Sent one file a message, or moved in batches, the index is the file's in `files` too.
  for (const options of [{ batch: false }, { transfer: true }]) {
    const other = await pool.decodePcoMany(files.map((f) => f.slice()), options).catch((e) => e);
    expect([options, other.message, other.jobIndex]).toEqual([options, here.message, 29]);
  }
  // The call settled after its other batches: none still queued or running. Failing in the first
  // batch drops the batches not yet sent; the error is the lowest index's.
  expect(pool.stats()).toMatchObject({ busy: 0, queued: 0 });
  const early = await pool.decodePcoMany([files[29], ...files]).catch((e) => e);
  expect(early.jobIndex).toBe(0);
  expect(early.message).toBe(here.message);
  expect(pool.stats()).toMatchObject({ busy: 0, queued: 0 });
  // The caller's arrays are copied, not moved.
  expect(files.every((f) => f.byteLength > 0)).toBe(true);
  // The decoder's own options travel with the packed files.
  const limited = await pool.decodePcoMany([files[0]], { maxOutputBytes: 8 }).catch((e) => e);
  let limitedHere;
  try {
    pco.decode(files[0], { maxOutputBytes: 8 });
  } catch (e) {
    limitedHere = e;
  }
  expect(limitedHere).toBeInstanceOf(Error);
  expect(limited.message).toBe(limitedHere.message);
  expect(limited.jobIndex).toBe(0);
});

test('decodePcoMany without batching gives the same', async () => {
  const picked = withValues.slice(0, 12);
  const results = await pool.decodePcoMany(picked.map((c) => readBytes(pcoDir, c.file)), { batch: false });
  for (const [i, c] of picked.entries()) expectSameBytes(bytesOf(results[i]), readBytes(pcoDir, c.expected), c.name);
});

test('runBatch: many jobs in one message each way; a failing job names its index', async () => {
  const before = pool.stats();
  const jobs = ['classic_u8_n1000', 'n1_f64', 'size_i32_n257'].map((n) => ({
    format: 'pco',
    op: 'decode',
    args: [readBytes(pcoDir, `${n}.pco`)],
  }));
  const results = await pool.runBatch(jobs);
  for (const [i, n] of ['classic_u8_n1000', 'n1_f64', 'size_i32_n257'].entries()) {
    expectSameBytes(bytesOf(results[i]), readBytes(pcoDir, `${n}.bin`), n);
  }
  expect(pool.stats().completed - before.completed).toBe(3);
  const bad = [jobs[0], { format: 'pco', op: 'decode', args: [new Uint8Array([1, 2, 3])] }, jobs[2]];
  const err = await pool.runBatch(bad).catch((e) => e);
  expect(err.message).toMatch(/\S/);
  expect(err.jobIndex).toBe(1);
  await expect(pool.runBatch('nope')).rejects.toThrow(/array of jobs/);
});

test("withFileIndex: a worker's answer is named once by its file's index; the pool's own errors by none", async () => {
  const { answered, withFileIndex } = await import('../../../js/worker/messages.js');
  // A packed batch's failure (its index inside the batch) and a file sent alone.
  expect(withFileIndex(answered(Object.assign(new Error('bad'), { jobIndex: 2 })), [10, 11, 12, 13]).jobIndex).toBe(12);
  expect(withFileIndex(answered(new Error('bad')), [7]).jobIndex).toBe(7);
  // One error of the pool's (no worker could start) rejecting several single-file messages.
  const shared = new Error('numdecode worker pool: a worker could not load numdecode');
  for (const i of [3, 4, 5]) expect(withFileIndex(shared, [i]).jobIndex).toBeUndefined();
});

test('planBatches: about four batches per worker, big items alone, order kept', () => {
  expect(planBatches([], 2)).toEqual([]);
  const small = planBatches(new Array(80).fill(100), 2);
  expect(small).toHaveLength(8);
  expect(small.flat()).toEqual([...Array(80).keys()]);
  expect(planBatches([10, 1000, 10, 10], 1)).toEqual([[0], [1], [2, 3]]);
  expect(planBatches(new Array(600).fill(1), 1).every((b) => b.length <= 256)).toBe(true);
});

test('large files in parallel: both workers busy, results match the SHA-256', async () => {
  const bench = standalone.filter((c) => c.name.startsWith('bench_'));
  const jobs = bench.map((c) => pool.decodePco(readBytes(pcoDir, c.file)));
  expect(pool.stats()).toMatchObject({ busy: 2, queued: bench.length - 2 });
  const results = await Promise.all(jobs);
  for (const [i, c] of bench.entries()) expect(sha256(bytesOf(results[i]))).toBe(c.sha256_of_expected);
  expect(pool.stats()).toMatchObject({ busy: 0, queued: 0 });
});

test('results arrive transferred: each typed array owns its whole buffer', async () => {
  const values = await pool.decodePco(readBytes(pcoDir, 'classic_f64_n1000.pco'));
  expect(Object.prototype.toString.call(values)).toBe('[object Float64Array]');
  expect(Object.prototype.toString.call(values.buffer)).toBe('[object ArrayBuffer]');
  expect(values.buffer.byteLength).toBe(values.byteLength);
  const chunks = await pool.run({ format: 'pco', op: 'decodeChunks', args: [readBytes(pcoDir, 'multichunk_i32_4chunks.pco')] });
  expect(chunks.map((c) => c.dtype)).toEqual(['i32', 'i32', 'i32', 'i32']);
  expectSameBytes(
    bytesOf(new Int32Array(chunks.flatMap((c) => Array.from(c.values)))),
    readBytes(pcoDir, 'multichunk_i32_4chunks.bin'),
    'chunks',
  );
});

test('inputs are copied by default and moved with {transfer: true}', async () => {
  const copied = readBytes(pcoDir, 'classic_u16_n1000.pco');
  const length = copied.byteLength;
  await pool.decodePco(copied);
  expect(copied.byteLength).toBe(length);
  const moved = readBytes(pcoDir, 'classic_u16_n1000.pco');
  const values = await pool.decodePco(moved, { transfer: true });
  expect(moved.byteLength).toBe(0); // detached: now owned by the worker
  expectSameBytes(bytesOf(values), readBytes(pcoDir, 'classic_u16_n1000.bin'), 'transferred input');
});

test('a view into a larger buffer: only its bytes travel, the caller keeps its buffer', async () => {
  const file = readBytes(pcoDir, 'classic_u32_n1000.pco');
  const big = new Uint8Array(file.byteLength + 1000);
  big.set(file, 7);
  const view = big.subarray(7, 7 + file.byteLength);
  const values = await pool.decodePco(view);
  expectSameBytes(bytesOf(values), readBytes(pcoDir, 'classic_u32_n1000.bin'), 'view input');
  expect(big.byteLength).toBe(file.byteLength + 1000);
  const batched = await pool.runBatch([{ format: 'pco', op: 'decode', args: [view] }]);
  expectSameBytes(bytesOf(batched[0]), readBytes(pcoDir, 'classic_u32_n1000.bin'), 'view input, batch');
});

test('a Node Buffer as input (what readFileSync gives) works, without deprecation warnings', async () => {
  const warnings = [];
  const onWarning = (w) => warnings.push(w.name);
  process.on('warning', onWarning);
  try {
    const values = await pool.decodePco(readFileSync(path.join(pcoDir, 'classic_i32_n1000.pco')));
    expectSameBytes(bytesOf(values), readBytes(pcoDir, 'classic_i32_n1000.bin'), 'Buffer input');
  } finally {
    process.off('warning', onWarning);
  }
  expect(warnings).toEqual([]);
});

test('any {format, op, args} job: inspect gives what the main thread gives', async () => {
  const file = readBytes(pcoDir, 'lookback_i64_period37.pco');
  expect(await pool.run({ format: 'pco', op: 'inspect', args: [file] })).toEqual(pco.inspect(file));
});

test('other formats: ALP pages decode in a worker bit-exactly; reader objects cannot cross threads', async () => {
  const alpDir = path.join(path.dirname(pcoDir), 'alp');
  const cases = JSON.parse(readFileSync(path.join(alpDir, 'manifest.json'), 'utf8'));
  const picked = (cases.cases ?? cases).filter((c) => c.expected !== null && c.n > 0).slice(0, 6);
  expect(picked.length).toBeGreaterThan(0);
  const results = await pool.runBatch(
    picked.map((c) => ({ format: 'alp', op: 'decode', args: [readBytes(alpDir, c.file), c.dtype === 'float32' ? 'f32' : 'f64'] })),
  );
  for (const [i, c] of picked.entries()) expectSameBytes(bytesOf(results[i]), readBytes(alpDir, c.expected), c.name);
  await expect(
    pool.run({ format: 'alp', op: 'open', args: [readBytes(alpDir, picked[0].file), picked[0].dtype === 'float32' ? 'f32' : 'f64'] }),
  ).rejects.toThrow(/cannot be sent back/);
});

describe('errors', () => {
  test('a damaged file rejects with the decoder message', async () => {
    const bad = pcoCorruptCases().find((c) => c.expect === 'error');
    const bytes = readBytes(pcoDir, bad.file);
    let mainThreadMessage;
    try {
      pco.decode(bytes);
    } catch (err) {
      mainThreadMessage = err.message;
    }
    await expect(pool.decodePco(bytes)).rejects.toThrow(mainThreadMessage);
  });

  test('unknown formats and operations, and bad jobs, are named', async () => {
    await expect(pool.run({ format: 'zip', op: 'decode', args: [] })).rejects.toThrow(/unknown format "zip" \(one of .*pco/);
    await expect(pool.run({ format: 'pco', op: 'explode', args: [] })).rejects.toThrow(/pco has no operation "explode" \(one of .*decode/);
    await expect(pool.run({ format: 'pco' })).rejects.toThrow(TypeError);
    await expect(pool.run({ format: 'pco', op: 'decode', args: 'x' })).rejects.toThrow(/job.args must be an array/);
    // A result that cannot be cloned back (functions in it: an ALP page reader) is an error, not
    // a hang, and the worker closes what it opened.
    const page = readBytes(path.join(corpusRoot, 'alp'), 'f32_n1.alp');
    await expect(pool.run({ format: 'alp', op: 'open', args: [page, 'f32'] })).rejects.toThrow(/cannot be sent back/);
  });

  test('an argument that cannot be cloned rejects', async () => {
    await expect(pool.run({ format: 'pco', op: 'decode', args: [() => 1] })).rejects.toThrow();
  });

  test('the pool keeps working after errors', async () => {
    const values = await pool.decodePco(readBytes(pcoDir, 'classic_i8_n1000.pco'));
    expectSameBytes(bytesOf(values), readBytes(pcoDir, 'classic_i8_n1000.bin'), 'after errors');
    expect(pool.stats().failed).toBeGreaterThan(0);
  });

  test('size must be a positive integer', async () => {
    await expect(createWorkerPool({ size: 0 })).rejects.toThrow(/size must be a positive integer/);
    await expect(createWorkerPool({ size: 1.5 })).rejects.toThrow(TypeError);
  });
});

// The scalar build, and a wasmUrl given as a URL object: one does not survive postMessage (it
// arrives as {}), so the pool hands its workers the href.
test.each([
  ['the scalar build', { simd: false }],
  ['wasmUrl as a URL object', { simd: false, formats: ['pco'], wasmUrl: new URL('../../../dist/numdecode-pco-scalar.wasm', import.meta.url) }],
])('init options reach the workers: %s', async (what, initOptions) => {
  const scalar = await createWorkerPool({ size: 1, init: initOptions });
  try {
    expect(scalar.buildInfo.simd).toBe(false);
    const values = await scalar.decodePco(readBytes(pcoDir, 'consec3_i64.pco'));
    expectSameBytes(bytesOf(values), readBytes(pcoDir, 'consec3_i64.bin'), what);
  } finally {
    await scalar.terminate();
  }
});

test('a worker that dies: its job rejects, a fresh worker takes its place', async () => {
  const own = await createWorkerPool({ size: 1 });
  try {
    const big = readBytes(pcoDir, 'bench_f64_sensor_2m.pco');
    const lost = expect(own.decodePco(big)).rejects.toThrow(/the worker died/);
    const next = own.decodePco(readBytes(pcoDir, 'classic_u32_n1000.pco')); // queued behind it
    own._terminateWorker(0);
    await lost;
    expectSameBytes(bytesOf(await next), readBytes(pcoDir, 'classic_u32_n1000.bin'), 'after a worker died');
    expect(own.stats()).toMatchObject({ size: 1, busy: 0, failed: 1 });
  } finally {
    await own.terminate();
  }
});

test('a job posted behind one whose worker dies: sent again from a copy, or failed when its input was moved there', async () => {
  const own = await createWorkerPool({ size: 1 });
  try {
    const big = readBytes(pcoDir, 'bench_f64_sensor_2m.pco');
    const lost = expect(own.decodePco(big)).rejects.toThrow(/the worker died/);
    const moved = readBytes(pcoDir, 'classic_u32_n1000.pco');
    const movedJob = own.decodePco(moved, { transfer: true }); // posted to the same worker, behind it
    const copied = own.decodePco(readBytes(pcoDir, 'classic_u32_n1000.pco'));
    expect(own.stats()).toMatchObject({ busy: 1, queued: 2 });
    expect(moved.byteLength).toBe(0); // its buffer went to the worker
    own._terminateWorker(0);
    await lost;
    const err = await movedJob.catch((e) => e);
    expect([err.code, err.message]).toEqual([CODES.ABORTED, expect.stringMatching(/moved input was stopped/)]);
    expectSameBytes(bytesOf(await copied), readBytes(pcoDir, 'classic_u32_n1000.bin'), 'sent again after its worker died');
  } finally {
    await own.terminate();
  }
});

test('terminate() rejects queued and running jobs, and later runs', async () => {
  const own = await createWorkerPool({ size: 1 });
  const big = readBytes(pcoDir, 'bench_u32_random_1500k.pco');
  const running = expect(own.decodePco(big)).rejects.toThrow(/terminated/);
  const queued = expect(own.decodePco(big)).rejects.toThrow(/terminated/);
  expect(own.stats()).toMatchObject({ busy: 1, queued: 1 });
  await own.terminate();
  await running;
  await queued;
  await expect(own.decodePco(big)).rejects.toThrow(/terminated/);
});

test('an idle pool does not keep Node running', () => {
  const script = `
    import { createWorkerPool } from ${JSON.stringify(path.join(projectRoot, 'js/worker/index.js'))};
    import { readFileSync } from 'node:fs';
    const pool = await createWorkerPool({ size: 2 });
    const values = await pool.decodePco(new Uint8Array(readFileSync(${JSON.stringify(path.join(pcoDir, 'n1_f64.pco'))})));
    console.log(values.length);
  `;
  // No terminate(): the process must still end by itself.
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { timeout: 30000, encoding: 'utf8' });
  expect(out.trim()).toBe('1');
});

test('a process started with V8 flags (--max-old-space-size, --expose-gc) still gets a pool', () => {
  const script = `
    import { createWorkerPool } from ${JSON.stringify(path.join(projectRoot, 'js/worker/index.js'))};
    import { readFileSync } from 'node:fs';
    const pool = await createWorkerPool({ size: 1 });
    const values = await pool.decodePco(new Uint8Array(readFileSync(${JSON.stringify(path.join(pcoDir, 'n1_f64.pco'))})));
    console.log(Array.from(values).join(','), typeof gc);
    await pool.terminate();
  `;
  const expected = Array.from(pco.decode(readBytes(pcoDir, 'n1_f64.pco'))).join(',');
  const out = execFileSync(process.execPath, ['--max-old-space-size=1024', '--expose-gc', '--input-type=module', '-e', script], { timeout: 30000, encoding: 'utf8' });
  expect(out.trim()).toBe(`${expected} function`);
});

test('close() is terminate() by the vocabulary\'s name: later jobs reject as terminated; the entry exports the error family', async () => {
  const own = await createWorkerPool({ size: 1 });
  const values = await own.decodePco(readBytes(pcoDir, 'classic_u32_n1000.pco'));
  expectSameBytes(bytesOf(values), readBytes(pcoDir, 'classic_u32_n1000.bin'), 'before close()');
  await own.close();
  expect(own.stats().size).toBe(0);
  const err = await own.decodePco(readBytes(pcoDir, 'classic_u32_n1000.pco')).catch((e) => e);
  expect(err).toBeInstanceOf(workerEntry.NumdecodeError);
  expect(err).toMatchObject({ code: workerEntry.CODES.ABORTED, message: 'numdecode worker pool: terminated' });
  await own.close(); // twice: nothing more to stop
});
