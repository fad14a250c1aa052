// numdecode/parquet: read Parquet files whose FLOAT / DOUBLE columns hold ALP pages (encoding 10,
// written by parquet-cpp and parquet-java), which JS Parquet readers stop at.
//
//   import { read, inspect } from 'numdecode/parquet';
//   const { numRows, columns } = await read('data.parquet', { columns: ['price'], rowStart: 0, rowEnd: 1000 });
//   columns.price.values; // Float64Array, one slot per row (0 at a null)
//   columns.price.valid;  // Uint8Array (1 = present) or null when the selection has no nulls
//
// hyparquet reads the footer, schema and page headers and every column that is not FLOAT /
// DOUBLE; numdecode reads the FLOAT / DOUBLE ones (top level, or inside structs as "a.b") from
// the pages up: codecs in wasm, levels, and every page decoded straight into the column's array.
import { parquetReadObjects } from 'hyparquet';
import { ensureFormat } from './wasm/load.js';
import { outputBytesLimit } from './bytes.js';
import { ParquetError, NumdecodeError, CODES, abortError } from './errors.js';
import { openFile } from './io/open.js';
import { statsSince } from './io/stats.js';
import { isNode } from './io/location.js';
import { joinSignals } from './io/signals.js';
import { readFooter, describeFooter } from './parquet/footer.js';
import { readFloatColumns, columnPagesFor } from './parquet/float-column.js';
import { prefetchChunks } from './parquet/chunk-pages.js';
import { chunkBuffer } from './parquet/chunk-buffer.js';

// The error family beside ParquetError, as every entry has it (require() and import alike).
export { ParquetError, NumdecodeError, CODES };

// Selected pages are fetched as they are (gap 0): ranges are not widened to swallow the pages between.
// In a page, a string that is not an absolute URL is taken relative to the page, like fetch().
function openSource(input, options) {
  const { columns, column, rowStart, rowEnd, into, pool, maxOutputBytes, ...io } = options;
  if (typeof input === 'string' && !isNode() && globalThis.location?.href && !/^[a-z][a-z0-9+.-]*:/i.test(input)) {
    input = new URL(input, globalThis.location.href).href;
  }
  return openFile(input, { gap: 0, ...io });
}

function checkRows(rowStart, rowEnd, total) {
  if (!Number.isSafeInteger(rowStart) || rowStart < 0) throw new RangeError(`parquet: rowStart must be a non-negative integer, got ${rowStart}`);
  if (!Number.isSafeInteger(rowEnd) || rowEnd < rowStart) throw new RangeError(`parquet: rowEnd must be an integer >= rowStart, got ${rowEnd}`);
  if (rowEnd > total) throw new RangeError(`parquet: rowEnd ${rowEnd} is past the file's ${total} rows`);
}

// A local path the pool's workers can open for themselves.
const localPathOf = (input, file) => (typeof input === 'string' && file.kind === 'local' ? input : null);

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

// A column hyparquet reads on its own (its codecs from hyparquet-compressors, loaded only then),
// with its errors named like ours.
async function readOtherColumn(ctx, column, rowStart, rowEnd) {
  try {
    const { compressors } = await import('hyparquet-compressors');
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
    const hint = /encoding: undefined/.test(message) ? ' (an ALP page in a column numdecode does not read as a FLOAT / DOUBLE column)' : '';
    throw new ParquetError(`parquet: ${ctx.name}: column ${column.name}: ${message}${hint}`, { code, file: ctx.name, column: column.name, cause: err });
  }
}

// The columns named in options.columns (top-level fields, or "a.b" for a FLOAT / DOUBLE leaf in
// a struct); all top-level fields by default.
function selectColumns(footer, names, fileName) {
  const all = footer.columns;
  if (names === undefined) return all;
  if (!Array.isArray(names)) throw new TypeError('parquet: options.columns must be an array of column names');
  // A name given twice is read once (the result has one entry per name).
  return [...new Set(names)].map((c) => {
    const col = all.find((x) => x.name === c) ?? footer.nestedFloats.find((x) => x.name === c);
    if (!col) {
      const known = [...all, ...footer.nestedFloats].map((x) => x.name).join(', ');
      throw new RangeError(`parquet: no column ${JSON.stringify(c)} in ${fileName} (columns: ${known})`);
    }
    return col;
  });
}

// options.into: column name -> a Float32Array (FLOAT) / Float64Array (DOUBLE) with room for the
// selected rows, or {values?, valid?} (valid: a Uint8Array of a byte a row), checked before
// anything is read. Returns column name -> {values, valid} (either may be undefined).
function checkInto(into, selected, numRows) {
  if (into === undefined) return {};
  if (into === null || typeof into !== 'object') throw new TypeError('parquet: options.into must be an object {columnName: Float32Array | Float64Array | {values, valid}}');
  const out = {};
  for (const [name, given] of Object.entries(into)) {
    const col = selected.find((c) => c.name === name);
    if (!col?.flatFloat) throw new RangeError(`parquet: options.into names ${JSON.stringify(name)}, which is not a selected FLOAT / DOUBLE column`);
    const Type = col.type === 'FLOAT' ? Float32Array : Float64Array;
    const parts = ArrayBuffer.isView(given) ? { values: given } : given;
    if (parts === null || typeof parts !== 'object' || Object.keys(parts).some((k) => k !== 'values' && k !== 'valid')) {
      throw new TypeError(`parquet: options.into.${name} must be a ${Type.name} or {values: ${Type.name}, valid: Uint8Array}`);
    }
    const { values, valid } = parts;
    if (values !== undefined) {
      if (!(values instanceof Type)) throw new TypeError(`parquet: options.into.${name} must be a ${Type.name} (the column is ${col.type})`);
      if (values.length < numRows) throw new RangeError(`parquet: options.into.${name} has room for ${values.length} values, the selection has ${numRows} rows`);
    }
    if (valid !== undefined) {
      if (!(valid instanceof Uint8Array)) throw new TypeError(`parquet: options.into.${name}.valid must be a Uint8Array (a byte a row: 1 present, 0 null)`);
      if (valid.length < numRows) throw new RangeError(`parquet: options.into.${name}.valid has room for ${valid.length} rows, the selection has ${numRows}`);
    }
    out[name] = { values, valid };
  }
  return out;
}

// options.maxOutputBytes: the FLOAT / DOUBLE columns' values for the selected rows, refused before
// anything is allocated or fetched when they would be more bytes.
function checkOutputBytes(floats, numRows, limit, fileName) {
  if (outputBytesLimit('parquet', limit) === Infinity) return;
  const bytes = floats.reduce((sum, c) => sum + numRows * (c.type === 'FLOAT' ? 4 : 8), 0);
  if (bytes > limit) {
    throw new ParquetError(`parquet: ${fileName}: ${numRows} rows of ${floats.map((c) => c.name).join(', ')} are ${bytes} bytes of values, over maxOutputBytes=${limit}`, {
      code: CODES.OUTPUT_LIMIT,
      file: fileName,
      column: floats[0]?.name,
    });
  }
}

// How chunks are fetched: from a remote source every selected chunk is asked for at once (one
// round trip); a source that reads synchronously (a local file, bytes, a Blob in a worker) is
// read chunk by chunk into one buffer in wasm memory, where the pages decode (chunk-buffer.js);
// others one chunk ahead of the decoder. The peak stays at the output plus one or two chunks.
function fetchPlan(file, floats, groups, ctx) {
  if (file.kind === 'http' || file.kind === 'object') {
    ctx.readAhead = Infinity;
    ctx.prefetched = prefetchChunks(ctx, floats, groups);
  } else if (typeof file.readSync === 'function') {
    ctx.readAhead = 0;
    ctx.chunkBuffer = chunkBuffer(file);
  } else {
    ctx.readAhead = 1;
  }
}

// readView decodes FLOAT / DOUBLE columns into the ALP module's memory; it has no caller's arrays
// and no workers (their memory is not this thread's module's).
function checkViewOptions(options) {
  for (const key of ['into', 'pool']) {
    if (options[key] !== undefined) throw new TypeError(`parquet readView: options.${key} is not taken (the view's memory is the ALP module's, on this thread); use read()`);
  }
}

// The columns of an open file: the footer is read, the rest of the read happens here. asView:
// readView's read, each FLOAT / DOUBLE column into the ALP module's memory.
async function readColumns(file, footer, options, localPath, asView = false) {
  const name = file.name;
  const { metadata } = footer;
  const rowStart = options.rowStart ?? 0;
  const rowEnd = options.rowEnd ?? footer.numRows;
  checkRows(rowStart, rowEnd, footer.numRows);
  const selected = selectColumns(footer, options.columns, name);
  const views = asView ? await import('./parquet/column-views.js') : null; // a page that never asks for views never loads it
  views?.checkViewColumns(selected, name);
  const numRows = rowEnd - rowStart;
  const into = checkInto(options.into, selected, numRows);
  const groups = selectGroups(metadata, rowStart, rowEnd);
  const floats = selected.filter((c) => c.flatFloat);
  const lists = selected.filter((c) => c.listFloat);
  checkOutputBytes(floats, numRows, options.maxOutputBytes, name);
  const ctx = { file, fileSize: footer.size, metadata, name, buffer: footer.buffer, signal: options.signal };
  if (floats.length || lists.length) await ensureFormat('alp'); // ALP pages: only the ALP module
  fetchPlan(file, [...floats, ...lists], groups, ctx);
  let decoded;
  try {
    if (views) {
      const columns = await views.readFloatColumnViews(ctx, floats, groups, numRows);
      return views.viewResult(numRows, Object.fromEntries(selected.map((c) => [c.name, columns.get(c.name)])));
    }
    if (options.pool && floats.length * groups.length > 1) {
      ctx.chunkBuffer?.release(); // the workers read for themselves
      const { readFloatColumnsInPool } = await import('./parquet/pool-read.js'); // a page without a pool never loads it
      decoded = await readFloatColumnsInPool(options.pool, ctx, floats, groups, numRows, into, localPath, options.signal);
    } else {
      decoded = await readFloatColumns(ctx, floats, groups, numRows, into);
    }
  } finally {
    ctx.chunkBuffer?.release();
  }
  // kind says which shape a column has (type alone cannot: a repeated DOUBLE is read by hyparquet).
  const columns = {};
  for (const column of selected) {
    if (column.listFloat) {
      const { readListColumn } = await import('./parquet/list-column.js');
      columns[column.name] = { kind: 'list', ...(await readListColumn(ctx, column, groups, numRows)) };
    } else if (decoded.has(column.name)) {
      columns[column.name] = { kind: 'float', ...decoded.get(column.name) };
    } else {
      columns[column.name] = { kind: 'other', ...(await readOtherColumn(ctx, column, rowStart, rowEnd)) };
    }
  }
  return { numRows, columns };
}

/**
 * Reads columns of a Parquet file.
 * @param {string|URL|ArrayBuffer|ArrayBufferView|Blob|object} input path (Node), http(s) URL, bytes, Blob/File,
 *   {size(), read(start, end)} or a hyparquet AsyncBuffer {byteLength, slice(start, end)}
 * @param {{columns?: string[], rowStart?: number, rowEnd?: number, into?: object, pool?: object, timeout?: number,
 *   signal?: AbortSignal, headers?: object, maxReadBytes?: number, fetch?: Function, maxOutputBytes?: number}} [options]
 *   into: {columnName: Float32Array | Float64Array | {values?, valid?}} writes those columns' values (and
 *   validity, a Uint8Array of a byte a row) into the caller's arrays;
 *   maxOutputBytes: refuse (ERR_OUTPUT_LIMIT) a read whose FLOAT / DOUBLE values would be more bytes;
 *   pool: a numdecode/worker pool: the column chunks (row groups x columns) decode in its workers
 * @returns {Promise<{numRows: number, columns: object, stats: {requests: number, bytes: number, roundTrips: number}}>}
 */
export async function read(input, options = {}) {
  return readFile(input, options ?? {}, false);
}

// read() and readView() of a file given by its input: the footer, then the columns, each read of the
// call racing its signal (a source that never answers cannot hold an aborted call).
async function readFile(input, options, asView) {
  if (asView) checkViewOptions(options);
  const file = openSource(input, options);
  try {
    const reading = withSignal(file, options.signal);
    const footer = await readFooter(reading, file.name);
    const result = await readColumns(reading, footer, options, asView ? null : localPathOf(input, file), asView);
    result.stats = statsSince(file.stats);
    return result;
  } finally {
    file.close();
  }
}

/**
 * Reads FLOAT / DOUBLE columns of a Parquet file as zero-copy views in the ALP module's memory:
 * every page decodes straight into its column's place there, nothing is copied out. Options as
 * read(), without `into` and `pool`; every selected column must be a FLOAT / DOUBLE column of one
 * value per row (top level or in a struct; not a leaf inside a list).
 * @returns {Promise<{numRows: number, columns: object, stats: object, release(): void}>} each column a
 *   view: `values` (re-made after the module's memory grows), `valid` (Uint8Array, 1 = present, or
 *   null), kind 'float', type, dtype, length, byteLength, released, release(); the result's
 *   release() (also Symbol.dispose) releases every column
 */
export async function readView(input, options = {}) {
  return readFile(input, options ?? {}, true);
}

// A view of an open file whose reads carry one call's signal (the file's own signal still applies).
function withSignal(file, signal) {
  if (!signal) return file;
  if (signal.aborted) throw abortError(signal, `parquet: reading ${file.name}`, ParquetError, { file: file.name });
  const view = Object.create(file);
  view.read = (start, end, opts = {}) => file.read(start, end, { signal, ...opts });
  view.readRanges = (ranges, opts = {}) => file.readRanges(ranges, { signal, ...opts });
  return view;
}

/**
 * Opens a Parquet file for several reads: the footer is read once, here (over HTTP one suffix
 * range request for most files), and every read() after it fetches only column chunks.
 * @returns {Promise<object>} { file, size, numRows, createdBy, version, schema, columns, rowGroups,
 *   stats, read(options), inspect(), close() }: stats count what crossed the wire since open, each
 *   read()'s result what that read fetched
 */
export async function open(input, options = {}) {
  options = options ?? {};
  const { columns, column, rowStart, rowEnd, into, pool, maxOutputBytes, ...io } = options;
  const file = openSource(input, io);
  let footer;
  try {
    footer = await readFooter(file, file.name);
  } catch (err) {
    file.close();
    throw err;
  }
  const info = describeFooter(footer, file.name);
  const localPath = localPathOf(input, file);
  let closed = false;
  const live = () => {
    if (closed) throw new ParquetError(`parquet: ${file.name} is closed`, { code: CODES.CLOSED, file: file.name });
  };
  // read() and readView() on the open file: stats count what this call fetched. The file's own
  // signal stops every read too (HTTP requests heed it already; a local file's reads and decoding
  // only see the signal they are given).
  const readOpen = async (readOptions, asView) => {
    live();
    if (asView) checkViewOptions(readOptions);
    const before = statsSince(file.stats);
    const joined = joinSignals(io.signal, readOptions.signal);
    try {
      const callOptions = joined.signal === readOptions.signal ? readOptions : { ...readOptions, signal: joined.signal };
      const result = await readColumns(withSignal(file, joined.signal), footer, callOptions, asView ? null : localPath, asView);
      result.stats = statsSince(file.stats, before);
      return result;
    } finally {
      joined.dispose();
    }
  };
  return {
    ...info,
    /** Names read() accepts in options.columns: top-level fields, then FLOAT / DOUBLE leaves in structs and lists. */
    columns: [...footer.columns, ...footer.nestedFloats].map((c) => c.name),
    get stats() {
      return statsSince(file.stats);
    },
    get closed() {
      return closed;
    },
    read(readOptions = {}) {
      return readOpen(readOptions ?? {}, false);
    },
    /** As readView(input, options), on the open file. */
    readView(readOptions = {}) {
      return readOpen(readOptions ?? {}, true);
    },
    /** As readPages(input, options), on the open file: its cache answers chunks already fetched. */
    async readPages(pageOptions = {}) {
      live();
      const before = statsSince(file.stats);
      const result = await pagesOf(file, footer, pageOptions ?? {});
      return { ...result, stats: statsSince(file.stats, before) };
    },
    /** As inspect(input, options) without reading the footer again; options.columns: only those chunks. */
    async inspect(inspectOptions = {}) {
      live();
      const before = statsSince(file.stats);
      await ensureFormat('alp');
      const { inspectFile } = await import('./parquet/inspect.js');
      const result = await inspectFile(file, file.name, footer, inspectOptions?.columns);
      result.stats = statsSince(file.stats, before);
      return result;
    },
    close() {
      if (closed) return;
      closed = true;
      file.close();
    },
    [Symbol.dispose]() {
      this.close();
    },
  };
}

/**
 * Schema, row groups and, per column chunk, its pages (type, encoding, counts, sizes; ALP layout,
 * vectors, exceptions and bits per value for ALP pages). Reads every column chunk, or with
 * options.columns only those columns' (each row group's `columns` then lists just them).
 */
export async function inspect(input, options = {}) {
  options = options ?? {};
  const { columns, ...io } = options;
  const file = openSource(input, io);
  try {
    const name = file.name;
    const footer = await readFooter(file, name);
    await ensureFormat('alp');
    const { inspectFile } = await import('./parquet/inspect.js'); // a page that only reads never loads it
    const info = await inspectFile(file, name, footer, columns);
    info.stats = statsSince(file.stats);
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
  const file = openSource(input, options);
  try {
    const footer = await readFooter(file, file.name);
    return { ...(await pagesOf(file, footer, options)), stats: statsSince(file.stats) };
  } finally {
    file.close();
  }
}

// readPages' work on a file whose footer is read (also an open file's readPages).
async function pagesOf(file, footer, options) {
  const name = file.name;
  const [column] = selectColumns(footer, [options.column], name);
  if (!column.flatFloat) throw new RangeError(`parquet: readPages reads FLOAT / DOUBLE columns; ${column.name} is ${column.type}`);
  const rowStart = options.rowStart ?? 0;
  const rowEnd = options.rowEnd ?? footer.numRows;
  checkRows(rowStart, rowEnd, footer.numRows);
  await ensureFormat('alp');
  const ctx = { file, fileSize: footer.size, metadata: footer.metadata, name, buffer: footer.buffer };
  return columnPagesFor(ctx, column, selectGroups(footer.metadata, rowStart, rowEnd));
}
