// One WebAssembly module per format, each loaded when first used: init({ formats }) loads a
// subset, a sync decoder of a format not loaded says which and how to load it, the async entry
// points load their own module, and a module given for one format cannot stand in for another.
// Its own test file: one module registry, loads in the order written here.
import { expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AlpError, CODES, NumdecodeError, alp, bpcells, buildInfo, init, pco } from '../../../js/index.js';
import { formatLoaded } from '../../../js/wasm/load.js';
import { corpusRoot, pcoDir, projectRoot, readBytes } from '../helpers/corpus.js';

const sameBytes = (typed, file) => Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength).equals(readFileSync(file));
const alpDir = path.join(corpusRoot, 'alp');
const dist = (name) => readFileSync(path.join(projectRoot, 'dist', name));

test('init({ formats }) loads only those modules; the others load later in the same build', async () => {
  await expect(init({ formats: ['pco', 'zstd'] })).rejects.toThrow(TypeError);
  await expect(init({ formats: 'pco' })).rejects.toThrow(/options.formats must be an array/);
  // One format's module cannot be given for several formats.
  const pcoWasm = dist('numdecode-pco-simd.wasm');
  await expect(init({ formats: ['pco', 'alp'], wasmBinary: pcoWasm })).rejects.toThrow(
    "options.wasmBinary is one format's module: pass it with a single format",
  );
  // No formats: nothing loads, and no build is chosen yet.
  await init({ formats: [], simd: false });
  expect(['pco', 'alp', 'bpcells'].map(formatLoaded)).toEqual([false, false, false]);

  await init({ formats: ['pco'], simd: true });
  expect(['pco', 'alp', 'bpcells'].map(formatLoaded)).toEqual([true, false, false]);
  expect(buildInfo().simd).toBe(true);
  const got = pco.decode(readBytes(pcoDir, 'classic_f64_n1000.pco'));
  expect(sameBytes(got, path.join(pcoDir, 'classic_f64_n1000.bin'))).toBe(true);

  // ALP is not loaded: its sync decoder names the format and the way to load it.
  const page = new Uint8Array(readFileSync(path.join(alpDir, 'f64_bw64_n2048.alp')));
  let err;
  try {
    alp.decode(page, 'f64');
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(NumdecodeError);
  expect(err.code).toBe(CODES.NOT_INITIALIZED);
  expect(err.message).toBe("numdecode: await init() before decoding alp (init({ formats: ['alp'] }) loads only its module)");

  // The other build cannot be chosen for the next format.
  await expect(init({ formats: ['alp'], simd: false })).rejects.toThrow(/SIMD build is already loaded/);
  // The Pco module given as ALP's is refused; a retry with the right one loads.
  const refused = init({ formats: ['alp'], wasmBinary: pcoWasm });
  await expect(refused).rejects.toThrow(NumdecodeError);
  await expect(refused).rejects.toThrow("numdecode init: the wasm given for alp is not numdecode's alp module");
  expect(formatLoaded('alp')).toBe(false);
  await init({ formats: ['alp'], wasmBinary: dist('numdecode-alp-simd.wasm') });
  expect(sameBytes(alp.decode(page, 'f64'), path.join(alpDir, 'f64_bw64_n2048.bin'))).toBe(true);
  expect(() => alp.decode(page.subarray(0, 3), 'f64')).toThrow(AlpError);
});

test('bpcells.open loads the BPCells module itself', async () => {
  expect(formatLoaded('bpcells')).toBe(false);
  const dir = path.join(corpusRoot, 'bpcells/packed_uint_col_names');
  const matrix = await bpcells.open(path.join(dir, 'matrix'));
  expect(formatLoaded('bpcells')).toBe(true);
  const { val, index } = await matrix.read();
  expect(sameBytes(val, path.join(dir, 'expected/val.u32'))).toBe(true);
  expect(sameBytes(index, path.join(dir, 'expected/index.u32'))).toBe(true);
  matrix.close();
});

test('a worker pool started with Pco only loads ALP in its worker on the first ALP job', async () => {
  const { createWorkerPool } = await import('../../../js/worker/index.js');
  const pool = await createWorkerPool({ size: 1, init: { formats: ['pco'] } });
  try {
    const page = new Uint8Array(readFileSync(path.join(alpDir, 'f64_bw64_n2048.alp')));
    const values = await pool.run({ format: 'alp', op: 'decode', args: [page, 'f64'] });
    expect(sameBytes(values, path.join(alpDir, 'f64_bw64_n2048.bin'))).toBe(true);
    const pcoValues = await pool.decodePco(readBytes(pcoDir, 'classic_f64_n1000.pco'));
    expect(sameBytes(pcoValues, path.join(pcoDir, 'classic_f64_n1000.bin'))).toBe(true);
  } finally {
    await pool.terminate();
  }
});
