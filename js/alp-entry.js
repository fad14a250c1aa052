// numdecode/alp: the ALP decoder alone, for pages that only read ALP pages. It loads the ALP
// WebAssembly module and none of the other formats' code, wasm or JS:
//
//   import { init, alp } from 'numdecode/alp';
//   await init(); // the ALP module only
//   const values = alp.decode(pageBytes, 'f64');
//
// The functions are the same objects as numdecode's `alp` namespace; loading both entries loads
// the ALP module once. (Parquet files with ALP columns: numdecode/parquet.)
import { loadOnly } from './wasm/load.js';
import * as self from './alp-entry.js';

export { buildInfo, simdSupported } from './wasm/load.js';
export { wasmInput } from './wasm/inputs.js';
export { memoryUsage, releaseMemory, autoReleaseMemory } from './wasm/memory.js';
export { DTYPES } from './dtypes.js';
export * as alp from './alp.js';
export { CODES, NumdecodeError, IoError, PcoError, AlpError, BpcellsError, ParquetError, ZarrError, Hdf5Error } from './errors.js';

/**
 * Loads the ALP WebAssembly module (options as numdecode's init(), without `formats`) and
 * resolves to this entry's namespace.
 * @param {{simd?: boolean|'auto', wasmBinary?: ArrayBuffer|Uint8Array, module?: WebAssembly.Module, wasmUrl?: string|URL}} [options]
 */
export async function init(options = {}) {
  await loadOnly('alp', 'ALP', options);
  return self;
}
