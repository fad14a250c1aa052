// Compiled by tests/js/packaging/types-resolution.test.js under moduleResolution node16, nodenext and bundler,
// from a user project whose node_modules holds numdecode: every entry point's types must resolve
// (not fall back to `any`, which the @ts-expect-error lines would expose).
import { init, buildInfo, pco, alp, bpcells, PcoError, type BuildInfo } from 'numdecode';
import { registerPcodec, PCODEC_CODEC_NAMES, list } from 'numdecode/zarr';
import { createWorkerPool, type WorkerPool } from 'numdecode/worker';
import { read, open, type ParquetReadResult } from 'numdecode/parquet';

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

// numdecode/alp and numdecode/bpcells: the light ALP-only and BPCells-only entries.
import * as alpOnly from 'numdecode/alp';
import * as bpcellsOnly from 'numdecode/bpcells';

export async function alpPage(page: Uint8Array): Promise<number> {
  const api: typeof alpOnly = await alpOnly.init({ simd: 'auto' });
  // @ts-expect-error: the light entry loads ALP only, it takes no formats
  await alpOnly.init({ formats: ['pco'] });
  const values: Float32Array = api.alp.decode(page, 'f32');
  // @ts-expect-error: ALP pages hold f32 or f64
  alpOnly.alp.decode(page, 'i32');
  const info: alpOnly.AlpPageInfo<'f64'> = alpOnly.alp.inspect(page, 'f64');
  const input: alpOnly.WasmInput = alpOnly.wasmInput('alp', page.length);
  input.release();
  const err: alpOnly.NumdecodeError = new alpOnly.AlpError('bad');
  return values[0] + info.numVectors + err.message.length;
}

export async function bpcellsPage(url: string): Promise<number> {
  const api: typeof bpcellsOnly = await bpcellsOnly.init();
  // @ts-expect-error: the light entry takes no formats
  await bpcellsOnly.init({ formats: ['bpcells'] });
  const matrix: bpcellsOnly.BpcellsMatrix = await api.bpcells.open(url);
  const slice: bpcellsOnly.BpcellsSlice = await matrix.read();
  // @ts-expect-error: open needs a source
  await bpcellsOnly.bpcells.open();
  const file = bpcellsOnly.io.openFile(new Uint8Array(4));
  const err: bpcellsOnly.NumdecodeError = new bpcellsOnly.BpcellsError('bad');
  return matrix.shape[0] + slice.val.length + (await file.size()) + err.message.length;
}

// A Zarr store's listing: nodes narrow on kind under every resolution.
export async function zarrArrays(url: string): Promise<number[][]> {
  const { nodes } = await list(url);
  return nodes.flatMap((n) => (n.kind === 'array' ? [n.shape] : []));
}

// Columns and matrices narrow on a literal under every resolution: no cast.
export async function narrowed(url: string): Promise<number> {
  const file = await open(url);
  const { columns } = await file.read({ columns: file.columns.slice(0, 1) });
  file.close();
  let sum = 0;
  for (const column of Object.values(columns)) {
    if (column.kind === 'float' && column.type === 'DOUBLE') {
      const values: Float64Array = column.values;
      sum += values[0];
    } else if (column.kind === 'list') {
      sum += column.offsets[1];
    }
  }
  const matrix = await bpcells.open(url);
  if (matrix.dtype === 'f32') {
    const val: Float32Array = (await matrix.read(0, 1)).val;
    sum += val[0];
  }
  return sum;
}
