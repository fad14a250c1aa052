// numdecode/parquet: read Parquet files whose FLOAT / DOUBLE columns hold ALP pages (encoding 10,
// written by parquet-cpp and parquet-java), which JS Parquet readers stop at.
//
//   import { read, inspect } from 'numdecode/parquet';
//   const { numRows, columns } = await read('data.parquet', { columns: ['price'], rowStart: 0, rowEnd: 1000 });
//   columns.price.values; // Float64Array, one slot per row (0 at a null)
//   columns.price.valid;  // Uint8Array (1 = present) or null when the selection has no nulls
//
// hyparquet reads the footer, schema, page headers, levels and every non-ALP encoding and
// hyparquet-compressors decompresses; numdecode decodes the ALP page bodies. Columns that are not
// flat FLOAT / DOUBLE are read by hyparquet itself (values as hyparquet returns them).
import { compressors } from 'hyparquet-compressors';
import { parquetReadObjects } from 'hyparquet';
import { ensureFormat } from './wasm/load.js';
import { ParquetError, NumdecodeError, CODES } from './errors.js';
import { openFile } from './io/index.js';
import { readFooter } from './parquet/footer.js';
import { readFloatColumn, columnPagesFor } from './parquet/float-column.js';
import { prefetchChunks } from './parquet/chunk-pages.js';
import { inspectFile } from './parquet/inspect.js';

// The error family beside ParquetError, as every entry has it (require() and import alike).
export { ParquetError, NumdecodeError, CODES };

// Selected pages are fetched as they are (gap 0): ranges are not widened to swallow the pages between.
// In a page, a string that is not an absolute URL is taken relative to the page, like fetch().
function open(input, options) {
  const { columns, column, rowStart, rowEnd, ...io } = options;
  const inNode = typeof globalThis.process === 'object' && typeof globalThis.process.versions?.node === 'string';
  if (typeof input === 'string' && !inNode && globalThis.location?.href && !/^[a-z][a-z0-9+.-]*:/i.test(input)) {
    input = new URL(input, globalThis.location.href).href;
  }
  return openFile(input, { gap: 0, ...io });
}

function checkRows(rowStart, rowEnd, total) {
  if (!Number.isSafeInteger(rowStart) || rowStart < 0) throw new RangeError(`parquet: rowStart must be a non-negative integer, got ${rowStart}`);
  if (!Number.isSafeInteger(rowEnd) || rowEnd < rowStart) throw new RangeError(`parquet: rowEnd must be an integer >= rowStart, got ${rowEnd}`);
  if (rowEnd > total) throw new RangeError(`parquet: rowEnd ${rowEnd} is past the file's ${total} rows`);
}

// Row groups overlapping [rowStart, rowEnd), with the selection inside each.
function selectGroups(metadata, rowStart, rowEnd) {
  const groups = [];
  let start = 0;
  metadata.row_groups.forEach((rg, index) => {
    const rows = Number(rg.num_rows);
    const end = start + rows;
    if (end > rowStart && start < rowEnd && rows > 0) {
      groups.push({ index, start, rows, selStart: Math.max(rowStart - start, 0), selEnd: Math.min(rowEnd - start, rows) });
    }
    start = end;
  });
  return groups;
}

// A column hyparquet reads on its own, with its errors named like ours.
async function readOtherColumn(ctx, column, rowStart, rowEnd) {
  try {
    const rows = await parquetReadObjects({
      file: ctx.buffer,
      metadata: ctx.metadata,
      columns: [column.name],
      rowStart,
      rowEnd,
      compressors,
    });
    return { type: column.type, values: rows.map((row) => row[column.name]), valid: null };
  } catch (err) {
    if (err instanceof NumdecodeError) throw err;
    const message = String(err?.message ?? err);
    const code = /unsupported/.test(message) ? CODES.UNSUPPORTED : CODES.BAD_DATA;
    const hint = /encoding: undefined/.test(message) ? ' (an ALP page in a column numdecode does not read as a flat FLOAT / DOUBLE column)' : '';
    throw new ParquetError(`parquet: ${ctx.name}: column ${column.name}: ${message}${hint}`, { code, file: ctx.name, column: column.name, cause: err });
  }
}

/**
 * Reads columns of a Parquet file.
 * @param {string|URL|ArrayBuffer|ArrayBufferView|Blob|object} input path (Node), http(s) URL, bytes, Blob/File,
 *   {size(), read(start, end)} or a hyparquet AsyncBuffer {byteLength, slice(start, end)}
 * @param {{columns?: string[], rowStart?: number, rowEnd?: number, timeout?: number, signal?: AbortSignal,
 *   headers?: object, maxBytes?: number, fetch?: Function}} [options]
 * @returns {Promise<{numRows: number, columns: object, stats: {requests: number, bytes: number}}>}
 */
export async function read(input, options = {}) {
  options = options ?? {};
  const file = open(input, options);
  try {
    const name = file.name;
    const footer = await readFooter(file, name);
    const { metadata, columns: all } = footer;
    const rowStart = options.rowStart ?? 0;
    const rowEnd = options.rowEnd ?? footer.numRows;
    checkRows(rowStart, rowEnd, footer.numRows);
    let selected = all;
    if (options.columns !== undefined) {
      if (!Array.isArray(options.columns)) throw new TypeError('parquet: options.columns must be an array of column names');
      selected = options.columns.map((c) => {
        const col = all.find((x) => x.name === c);
        if (!col) throw new RangeError(`parquet: no column ${JSON.stringify(c)} in ${name} (columns: ${all.map((x) => x.name).join(', ')})`);
        return col;
      });
    }
    const numRows = rowEnd - rowStart;
    const groups = selectGroups(metadata, rowStart, rowEnd);
    const ctx = { file, fileSize: footer.size, metadata, compressors, name, buffer: footer.buffer };
    if (selected.some((c) => c.flatFloat)) await ensureFormat('alp'); // ALP pages: only the ALP module
    ctx.prefetched = prefetchChunks(ctx, selected.filter((c) => c.flatFloat), groups);
    const columns = {};
    for (const column of selected) {
      columns[column.name] = column.flatFloat
        ? await readFloatColumn(ctx, column, groups, numRows)
        : await readOtherColumn(ctx, column, rowStart, rowEnd);
    }
    return { numRows, columns, stats: { requests: file.stats.requests, bytes: file.stats.bytes } };
  } finally {
    file.close();
  }
}

/**
 * Schema, row groups and, per column chunk, its pages (type, encoding, counts, sizes; ALP layout,
 * vectors, exceptions and bits per value for ALP pages). Reads every column chunk.
 */
export async function inspect(input, options = {}) {
  options = options ?? {};
  const file = open(input, options);
  try {
    const name = file.name;
    const footer = await readFooter(file, name);
    await ensureFormat('alp');
    const info = await inspectFile(file, name, footer, compressors);
    info.stats = { requests: file.stats.requests, bytes: file.stats.bytes };
    return info;
  } finally {
    file.close();
  }
}

/**
 * The pages of one FLOAT / DOUBLE column that hold rows [rowStart, rowEnd), for decoding
 * elsewhere (e.g. in a Web Worker, where hyparquet's bare imports cannot be resolved without a
 * bundler): ALP pages come as `alp` payload bytes for alp.decode(), other pages as decoded
 * `values`; `valid` (1 = present) is per row of the page, null when the page has no null.
 * @returns {Promise<{dtype: 'f32'|'f64', pages: Array<{rowGroup: number, page: number, rowStart: number,
 *   numRows: number, encoding: string, alp?: Uint8Array, values?: Float32Array|Float64Array, valid: Uint8Array|null}>}>}
 */
export async function readPages(input, options = {}) {
  options = options ?? {};
  const file = open(input, options);
  try {
    const name = file.name;
    const footer = await readFooter(file, name);
    const column = footer.columns.find((c) => c.name === options.column);
    if (!column) throw new RangeError(`parquet: no column ${JSON.stringify(options.column)} in ${name} (columns: ${footer.columns.map((x) => x.name).join(', ')})`);
    if (!column.flatFloat) throw new RangeError(`parquet: readPages reads FLOAT / DOUBLE columns; ${column.name} is ${column.type}`);
    const rowStart = options.rowStart ?? 0;
    const rowEnd = options.rowEnd ?? footer.numRows;
    checkRows(rowStart, rowEnd, footer.numRows);
    const ctx = { file, fileSize: footer.size, metadata: footer.metadata, compressors, name, buffer: footer.buffer };
    const result = await columnPagesFor(ctx, column, selectGroups(footer.metadata, rowStart, rowEnd));
    return { ...result, stats: { requests: file.stats.requests, bytes: file.stats.bytes } };
  } finally {
    file.close();
  }
}
