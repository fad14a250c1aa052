// Compiled (not run) by `tsc -p tests/types`: the CommonJS entries as a require() user sees them.
import numdecode = require('numdecode');
import numdecodeZarr = require('numdecode/zarr');
import numdecodeWorker = require('numdecode/worker');

export async function example(bytes: Uint8Array) {
  await numdecode.init();
  const values: numdecode.DecodedArray = numdecode.pco.decode(bytes);
  const esm = await numdecode.load();
  const info: numdecode.PcoFileInfo = esm.pco.inspect(bytes);
  const floats: Float64Array = numdecode.alp.decode(bytes, 'f64');
  const matrix: numdecode.BpcellsMatrix = await numdecode.bpcells.open('/data/matrix');
  const registry = numdecodeZarr.registerPcodec(new Map<string, () => Promise<unknown>>());
  const zarrModule = await numdecodeZarr.load();
  const codec = zarrModule.PcodecCodec.fromConfig({}, { dataType: 'int32', shape: [4] });
  const pool = await numdecodeWorker.createWorkerPool({ size: 1 });
  const decoded = await pool.decodePco(bytes);
  await pool.terminate();
  return { values, info, floats, matrix, registry, codec, decoded };
}
