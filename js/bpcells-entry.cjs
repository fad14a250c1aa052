'use strict';
// CommonJS entry of numdecode/bpcells (require('numdecode/bpcells')): init() loads only the
// BPCells WebAssembly module; the rest forwards to the ES module once init() has run, as
// numdecode's CommonJS entry (index.cjs) does. Weight does not matter in Node, so it reuses that entry.
const full = require('./index.cjs');

/** Loads the ES module and the BPCells WebAssembly module (see the ES init()). */
exports.init = async function init(options) {
  await full.load();
  const entry = await import('./bpcells-entry.js');
  return entry.init(options);
};
for (const name of ['buildInfo', 'simdSupported', 'DTYPES', 'bpcells', 'io', 'CODES', 'NumdecodeError', 'IoError', 'PcoError', 'AlpError', 'BpcellsError', 'ParquetError']) {
  exports[name] = full[name];
}
