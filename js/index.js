// numdecode: Pco, ALP and BPCells decoders in WebAssembly.
// await init() once, then call the format APIs.
import { loadFormats } from './wasm/load.js';
import * as self from './index.js';

export { buildInfo, simdSupported } from './wasm/load.js';
export { wasmInput } from './wasm/inputs.js';
export { memoryUsage, releaseMemory, autoReleaseMemory } from './wasm/memory.js';
export { DTYPES, toFloat32 } from './dtypes.js';
export * as pco from './pco.js';
// ALP (added by the ALP branch)
export * as alp from './alp.js';
// BPCells (bpcells branch): lazy matrix-directory reader.
export * as bpcells from './bpcells/index.js';
// One range-reading layer (local, http(s), Blob, buffer, user object) under every container reader.
export * as io from './io/index.js';
// One error family for every format and container (see errors.js for the codes).
export { CODES, NumdecodeError, IoError, PcoError, AlpError, BpcellsError, ParquetError, ZarrError, Hdf5Error } from './errors.js';

/**
 * Loads the WebAssembly modules of options.formats (default: every format) and resolves to the
 * package's API (this namespace), so that `const { pco } = await init()` works. Each format's
 * module loads once: concurrent and later calls share its load, and a failed load can be retried.
 * The first load picks the SIMD or scalar build for all formats; a later call that explicitly asks
 * for the other build (simd: true vs false) throws. wasmBinary, module or wasmUrl replace one
 * module's default location, so they come with a single format: `{ formats: ['pco'], module }`.
 * @param {{simd?: boolean|'auto', formats?: string[], wasmBinary?: ArrayBuffer|Uint8Array, module?: WebAssembly.Module, wasmUrl?: string|URL}} [options]
 */
export async function init(options = {}) {
  await loadFormats(options);
  return self;
}
