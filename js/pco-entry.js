// numdecode/pco: the Pco decoder alone, for pages that only read Pco (a Zarr viewer, say). It
// loads the Pco WebAssembly module and none of the other formats' code, wasm or JS:
//
//   import { init, pco } from 'numdecode/pco';
//   await init(); // the Pco module only
//   const values = pco.decode(bytes);
//
// The functions are the same objects as numdecode's `pco` namespace; loading both entries loads
// the Pco module once.
import { loadOnly } from './wasm/load.js';
import * as self from './pco-entry.js';

export { buildInfo, simdSupported } from './wasm/load.js';
export { wasmInput } from './wasm/inputs.js';
export { memoryUsage, releaseMemory, autoReleaseMemory } from './wasm/memory.js';
export { DTYPES, toFloat32 } from './dtypes.js';
export * as pco from './pco.js';
export { CODES, NumdecodeError, IoError, PcoError, AlpError, BpcellsError, ParquetError, ZarrError, Hdf5Error } from './errors.js';

/**
 * Loads the Pco WebAssembly module (options as numdecode's init(), without `formats`) and
 * resolves to this entry's namespace.
 * @param {{simd?: boolean|'auto', wasmBinary?: ArrayBuffer|Uint8Array, module?: WebAssembly.Module, wasmUrl?: string|URL}} [options]
 */
export async function init(options = {}) {
  await loadOnly('pco', 'Pco', options);
  return self;
}
