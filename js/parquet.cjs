'use strict';
// CommonJS entry of numdecode/parquet. The reader is an ES module (hyparquet is ESM only), so
// read() and inspect() load it with import() on first use; load() resolves to the ES module.
// Errors: branch on err.code (CODES), or `err instanceof ParquetError` (the stand-in below
// answers for the ES module's class, whose errors exist only once it is loaded).

const { CODES } = require('./index.cjs');

let errors = null; // js/errors.js, set when the reader loads
function load() {
  return Promise.all([import('./parquet.js'), import('./errors.js')]).then(([reader, errorModule]) => {
    errors = errorModule;
    return reader;
  });
}

function errorStandIn(name) {
  const standIn = function numdecodeErrorClass(...args) {
    if (errors === null) throw new Error(`numdecode/parquet: await load() before constructing ${name}`);
    return new errors[name](...args);
  };
  Object.defineProperty(standIn, 'name', { value: name });
  Object.defineProperty(standIn, Symbol.hasInstance, { value: (x) => errors !== null && x instanceof errors[name] });
  return standIn;
}

async function read(file, options) {
  return (await load()).read(file, options);
}

async function inspect(file, options) {
  return (await load()).inspect(file, options);
}

async function readPages(file, options) {
  return (await load()).readPages(file, options);
}

module.exports = {
  read,
  inspect,
  readPages,
  load,
  CODES,
  NumdecodeError: errorStandIn('NumdecodeError'),
  ParquetError: errorStandIn('ParquetError'),
};
