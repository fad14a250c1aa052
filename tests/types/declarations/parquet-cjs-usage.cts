// Compiled (not run) by tests/js/packaging/declarations.test.js: the CommonJS entry's declarations.
import parquet = require('numdecode/parquet');

export async function example(bytes: Uint8Array) {
  const r = await parquet.read(bytes, { columns: ['a'] });
  const info = await parquet.inspect(bytes);
  const pages = await parquet.readPages(bytes, { column: 'a' });
  const esm = await parquet.load();
  const isError: boolean = new Error('x') instanceof esm.ParquetError;
  const damaged: boolean = new Error('y') instanceof parquet.ParquetError;
  const code: string = parquet.CODES.BAD_DATA;
  return [r.numRows, info.numRows, pages.dtype, isError, damaged, code];
}
