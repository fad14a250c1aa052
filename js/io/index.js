// The one range-reading layer: bytes [start, end) of a file that may be local, remote, a Blob or
// a buffer, with retries, validator pinning, merging, a bounded cache and one stats shape.
// Every container reader (BPCells, HDF5, Parquet) and the demo read through it.
export { openFile } from './open.js';
export { openDirectory, RangeDirectory } from './directory.js';
export { RangeFile } from './range-file.js';
export { readTail } from './tail.js';
export { statsSince } from './stats.js';
export { DEFAULTS as IO_DEFAULTS } from './options.js';
export { IoError, CODES } from './errors.js';
