// The same package from CommonJS (the "require" conditions), under node16 and nodenext.
import numdecode = require('numdecode');
import worker = require('numdecode/worker');
import zarr = require('numdecode/zarr');

export async function start(): Promise<boolean> {
  await numdecode.init();
  // @ts-expect-error: the pool size is a number
  await worker.createWorkerPool({ size: 'two' });
  const names: readonly string[] = zarr.PCODEC_CODEC_NAMES;
  return numdecode.buildInfo().simd && names.length > 0;
}

import parquet = require('numdecode/parquet');

export async function rows(): Promise<number> {
  const result: parquet.ParquetReadResult = await parquet.read('data.parquet');
  return result.numRows;
}

import pcoOnly = require('numdecode/pco');

export async function pcoPage(bytes: Uint8Array): Promise<number> {
  await pcoOnly.init();
  // @ts-expect-error: the light entry takes no formats
  await pcoOnly.init({ formats: ['pco'] });
  return pcoOnly.pco.decode(bytes).length;
}

import alpOnly = require('numdecode/alp');
import bpcellsOnly = require('numdecode/bpcells');

export async function lightPages(page: Uint8Array, url: string): Promise<number> {
  await alpOnly.init();
  // @ts-expect-error: the light entry takes no formats
  await alpOnly.init({ formats: ['alp'] });
  const values: Float64Array = alpOnly.alp.decode(page, 'f64');
  await bpcellsOnly.init({ simd: 'auto' });
  const matrix: bpcellsOnly.BpcellsMatrix = await bpcellsOnly.bpcells.open(url);
  return values.length + matrix.shape[1];
}
