'use strict';
// CommonJS entry of numdecode/parquet. The reader is an ES module (hyparquet is ESM only), so
// read() and inspect() load it with import() on first use; load() resolves to the ES module
// (ParquetError for instanceof checks is there too; or branch on err.code).

function load() {
  return import('./parquet.js');
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

module.exports = { read, inspect, readPages, load };
