// numdecode/bpcells: the BPCells matrix reader alone, for pages that only read BPCells matrices
// (directories, or groups in HDF5 files through h5wasm, which loads only for HDF5). It loads the
// BPCells WebAssembly module and none of the other formats' code, wasm or JS:
//
//   import { bpcells } from 'numdecode/bpcells';
//   const matrix = await bpcells.open(url); // loads the BPCells module on first use
//   const { idxptr, index, val } = await matrix.read();
//
// `bpcells` and `io` (the range-reading layer under it, for custom sources) are the same objects
// as numdecode's namespaces; loading both entries loads the BPCells module once.
import { loadOnly } from './wasm/load.js';
import * as self from './bpcells-entry.js';

export { buildInfo, simdSupported } from './wasm/load.js';
export { DTYPES } from './dtypes.js';
export { memoryUsage, releaseMemory, autoReleaseMemory } from './wasm/memory.js';
export * as bpcells from './bpcells/index.js';
export * as io from './io/index.js';
export { CODES, NumdecodeError, IoError, PcoError, AlpError, BpcellsError, ParquetError, ZarrError, Hdf5Error } from './errors.js';

/**
 * Loads the BPCells WebAssembly module ahead of the first open() (options as numdecode's init(),
 * without `formats`; open() loads it itself when this was not called) and resolves to this
 * entry's namespace.
 * @param {{simd?: boolean|'auto', wasmBinary?: ArrayBuffer|Uint8Array, module?: WebAssembly.Module, wasmUrl?: string|URL}} [options]
 */
export async function init(options = {}) {
  await loadOnly('bpcells', 'BPCells', options);
  return self;
}
