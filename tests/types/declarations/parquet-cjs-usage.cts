// Compiled (not run) by tests/js/packaging/declarations.test.js: the entry's declarations as a require()
// user sees them (require(esm); the package has no CommonJS twins).
import parquet = require('numdecode/parquet');

export async function example(bytes: Uint8Array) {
  const r = await parquet.read(bytes, { columns: ['a'] });
  const info = await parquet.inspect(bytes);
  const pages = await parquet.readPages(bytes, { column: 'a' });
  const isError: boolean = new Error('x') instanceof parquet.NumdecodeError;
  const damaged: boolean = new Error('y') instanceof parquet.ParquetError;
  const code: string = parquet.CODES.BAD_DATA;
  return [r.numRows, info.numRows, pages.dtype, isError, damaged, code];
}
