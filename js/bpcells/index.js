// BPCells matrix directories: lazy, range-based reading from a local directory (Node), an
// HTTP(S) base URL or a custom {size, read} source; BP-128 decoding runs in WebAssembly.
export { open, Matrix } from './matrix.js';
export { BpcellsError, HttpSource, LocalDirSource, ObjectSource, toSource } from './sources.js';
