// Compiled (not run) by `tsc -p tests/types`: the package as a require() user sees it. The package is
// ES modules only; Node >= 20.19 serves require() of them (require(esm)), and TypeScript's NodeNext types it.
import numdecode = require('numdecode');
import numdecodeZarr = require('numdecode/zarr');
import numdecodeWorker = require('numdecode/worker');

export async function example(bytes: Uint8Array) {
  await numdecode.init();
  const values: numdecode.DecodedArray = numdecode.pco.decode(bytes);
  const info: numdecode.PcoFileInfo = numdecode.pco.inspect(bytes);
  const floats: Float64Array = numdecode.alp.decode(bytes, 'f64');
  const matrix: numdecode.BpcellsMatrix = await numdecode.bpcells.open('/data/matrix');
  const registry = numdecodeZarr.registerPcodec(new Map<string, () => Promise<unknown>>());
  const codec = numdecodeZarr.PcodecCodec.fromConfig({}, { dataType: 'int32', shape: [4] });
  const pool = await numdecodeWorker.createWorkerPool({ size: 1 });
  const decoded = await pool.decodePco(bytes);
  await pool.terminate();
  return { values, info, floats, matrix, registry, codec, decoded };
}
