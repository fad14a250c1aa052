// Compiled by tests/js/types-resolution.test.js under moduleResolution node16, nodenext and bundler,
// from a user project whose node_modules holds numdecode: every entry point's types must resolve
// (not fall back to `any`, which the @ts-expect-error lines would expose).
import { init, buildInfo, pco, alp, bpcells, PcoError, type BuildInfo } from 'numdecode';
import { registerPcodec, PCODEC_CODEC_NAMES } from 'numdecode/zarr';
import { createWorkerPool, type WorkerPool } from 'numdecode/worker';
import { read, type ParquetReadResult } from 'numdecode/parquet';

export async function viewer(bytes: Uint8Array, page: Uint8Array): Promise<number> {
  await init({ simd: false });
  const info: BuildInfo = buildInfo();
  const ints = pco.decode(bytes, { dtype: 'i32' });
  const first: number = ints[0];
  const doubles: Float64Array = alp.decode(page, 'f64');
  // @ts-expect-error: the dtype names are checked
  pco.decode(bytes, { dtype: 'i33' });
  // @ts-expect-error: init's options are checked
  await init({ simd: 'yes' });
  const matrix = await bpcells.open('https://example.org/matrix/');
  const pool: WorkerPool = await createWorkerPool({ size: 2, init: { simd: false } });
  registerPcodec(new Map<string, () => Promise<unknown>>(), { pool });
  // @ts-expect-error: registerPcodec needs a registry
  registerPcodec(42);
  const name: 'numcodecs.pcodec' | 'pcodec' = PCODEC_CODEC_NAMES[0];
  const result: ParquetReadResult = await read('data.parquet', { columns: ['price'] });
  const err = new PcoError('bad');
  await pool.terminate();
  return first + doubles[0] + matrix.shape[0] + result.numRows + name.length + err.message.length + Number(info.simd);
}

// numdecode/pco: the light Pco-only entry.
import * as pcoOnly from 'numdecode/pco';

export async function pcoPage(bytes: Uint8Array): Promise<number> {
  const api: typeof pcoOnly = await pcoOnly.init({ simd: 'auto' });
  await init({ formats: ['pco', 'alp'] });
  // @ts-expect-error: the light entry loads Pco only, it takes no formats
  await pcoOnly.init({ formats: ['alp'] });
  // @ts-expect-error: formats are checked
  await init({ formats: ['zstd'] });
  const values: Float64Array = api.pco.decode(bytes, { dtype: 'f64' });
  const err: pcoOnly.NumdecodeError = new pcoOnly.PcoError('bad');
  return values[0] + err.message.length + Number(pcoOnly.buildInfo().simd);
}
