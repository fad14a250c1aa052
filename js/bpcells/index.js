// BPCells matrices: lazy, range-based reading of matrix directories (local directory, HTTP(S)
// base URL, custom {size, read} source) and of matrix groups in HDF5 files (through h5wasm,
// loaded only for HDF5); BP-128 decoding runs in WebAssembly.
export { open, list } from './open.js';
export { readSlice, readNames } from './one-shot.js';
export { Matrix } from './matrix.js';
export { viewStats } from './slice-output.js';
export { BpcellsError, HttpSource, LocalDirSource, ObjectSource, toSource } from './sources.js';
