// numdecode: Pco, ALP and BPCells decoders in WebAssembly.
// await init() once, then call the format APIs.
export { init, buildInfo, simdSupported, DTYPES, wasmInput } from './wasm.js';
export * as pco from './pco.js';
// ALP (added by the ALP branch)
export * as alp from './alp.js';
// BPCells (bpcells branch): lazy matrix-directory reader.
export * as bpcells from './bpcells/index.js';
// One range-reading layer (local, http(s), Blob, buffer, user object) under every container reader.
export * as io from './io/index.js';
// One error family for every format and container (see errors.js for the codes).
export { CODES, NumdecodeError, IoError, PcoError, AlpError, BpcellsError, ParquetError } from './errors.js';
