// FLOAT / DOUBLE leaves over the selected row groups, decoded into one output array per column:
// column chunks in file order (row group by row group), fetched as ctx says (every chunk at once
// from a remote source; one at a time into a buffer in wasm memory from a local file or bytes;
// else one chunk ahead of the decoder), pages decompressed and decoded straight into the output
// (float-page.js). columnPagesFor hands the pages out instead (readPages), for a decoder elsewhere.
import { encodingName, knownCodec, ALP_ENCODING_ID } from './pages.js';
import { inflatePage, isPromise, splitPage, pageValidity, decodePageInto, readDictionary } from './float-page.js';
import { alpValueCount } from './alp-page.js';
import { columnError } from './column-error.js';
import { chunkPages, chunkRange, usesOffsetIndex } from './chunk-pages.js';
import { CODES, ParquetError, abortError } from '../errors.js';
import { wasmPageScratch } from './page-nulls.js';


// A Uint8Array lent per page (its validity), grown as needed, and the ALP module's working memory
// for pages with levels (page-nulls.js: nothing until decodeChunk reserves it for a chunk).
function scratchSpace() {
  let validity = new Uint8Array(0);
  return {
    validity(n) {
      if (validity.length < n) validity = new Uint8Array(n);
      return validity;
    },
    wasm: wasmPageScratch(),
  };
}

/** What decoding one chunk needs to know of its column and the chunk's metadata. */
export async function chunkColumn(ctx, column, group) {
  const where = { file: ctx.name, column: column.name, rowGroup: group.index };
  const chunk = ctx.metadata.row_groups[group.index].columns[column.leafIndex];
  const meta = chunk?.meta_data;
  const maxRep = column.maxRep ?? 0;
  if (meta && meta.type !== column.type) throw columnError(where, `the chunk's type ${meta.type} is not the schema's ${column.type}`);
  // (a list's chunk holds one value per element: its rows are counted from the repetition levels)
  if (meta && maxRep === 0 && Number(meta.num_values) !== group.rows) {
    throw columnError(where, `the chunk holds ${meta.num_values} values, the row group has ${group.rows} rows`);
  }
  if (meta && !knownCodec(meta.codec)) throw columnError(where, { unsupported: `codec ${meta.codec} is not supported` });
  let inflate = null;
  try {
    // the codecs' module only when a chunk is compressed (a page reading UNCOMPRESSED files never loads it)
    if (meta && meta.codec !== 'UNCOMPRESSED') inflate = await (await import('./codecs.js')).loadCodec(meta.codec);
  } catch (err) {
    throw columnError(where, { unsupported: `the ${meta.codec} decompressor could not be loaded (${err?.message ?? err})` }, err);
  }
  const col = {
    type: column.type,
    maxDef: column.maxDef,
    maxRep,
    codec: meta?.codec,
    inflate,
    chunkUncompressed: Number(meta?.total_uncompressed_size) || undefined,
  };
  return { chunk, col, where };
}

// A page's bytes after its header: from the chunk's view when it lies in wasm memory (memory
// growth detaches older views), else from the bytes it was walked in.
export const bodyOf = (pages, p) => (pages.view ? pages.view() : p.bytes).subarray(p.dataStart, p.dataEnd);

export async function groupDictionary(pages, col, where) {
  const d = pages.dictionary;
  if (!d) return null;
  try {
    let inflated = inflatePage(bodyOf(pages, d), d, col);
    if (isPromise(inflated)) inflated = await inflated;
    return readDictionary(inflated, d, col);
  } catch (msg) {
    throw columnError({ ...where, page: 'dictionary page' }, msg);
  }
}

/**
 * The output arrays of a column: the caller's `into` arrays (checked by the caller; `into.valid`
 * for the validity, as the worker pool passes shared memory, holding 1s) or new ones; a new
 * validity only once a page has a null (validityOf). `fileName` names the file in the error when
 * there is no memory for them.
 */
export function outputFor(column, numRows, into = {}, fileName = undefined) {
  const Type = column.type === 'FLOAT' ? Float32Array : Float64Array;
  const values = into.values ? into.values.subarray(0, numRows) : newValues(Type, numRows, column, fileName);
  const valid = column.maxDef > 0 && into.valid ? into.valid.subarray(0, numRows) : null;
  return { type: column.type, values, valid, validRows: numRows, nulls: 0 };
}

/**
 * outputFor over a caller's `into` entry ({values, valid}, checked): its validity filled with 1s
 * first (all present: the pages write their nulls; a REQUIRED column's has no null to write).
 */
export function outputInto(column, numRows, into = {}, fileName = undefined) {
  into.valid?.fill(1, 0, numRows);
  return outputFor(column, numRows, into, fileName);
}

/**
 * A column output's validity, made on first use (all present: the pages write their nulls). An
 * OPTIONAL column without nulls, what most writers make of a column without them, never needs
 * one (its result's `valid` is null): no array of a byte a row to allocate and fill.
 */
export function validityOf(out, { file, column }) {
  if (out.valid) return out.valid;
  try {
    out.valid = new Uint8Array(out.validRows).fill(1);
  } catch (err) {
    throw new ParquetError(`parquet: ${file}: column ${column}: out of memory for the validity of ${out.validRows} rows (rowStart / rowEnd bound a read)`, {
      code: CODES.OUTPUT_LIMIT,
      file,
      column,
      cause: err,
    });
  }
  return out.valid;
}

// V8's RangeError ("Array buffer allocation failed") names neither the column nor the size: a
// footer may claim any number of rows (a run of nulls costs a few bytes however long it is).
function newValues(Type, numRows, column, fileName) {
  try {
    return new Type(numRows);
  } catch (err) {
    const bytes = numRows * Type.BYTES_PER_ELEMENT;
    throw new ParquetError(`parquet: ${fileName ?? 'a file'}: column ${column.name}: out of memory for ${bytes} bytes of output (rowStart / rowEnd, or maxOutputBytes, bound a read)`, {
      code: CODES.OUTPUT_LIMIT,
      file: fileName,
      column: column.name,
      cause: err,
    });
  }
}

/**
 * Reads FLOAT / DOUBLE leaves over the selected row groups.
 * @param {{file: object, fileSize: number, metadata: object, name: string, readAhead: number,
 *   prefetched?: Map, chunkBuffer?: {place: Function}, signal?: AbortSignal}} ctx
 * @param {Array<{name: string, leafIndex: number, type: 'FLOAT'|'DOUBLE', maxDef: number}>} columns
 * @param {Array<{index: number, rows: number, selStart: number, selEnd: number}>} groups
 * @param {number} numRows
 * @param {object} [into] column name -> the caller's {values, valid} (checked by parquet.js)
 * @returns {Promise<Map<string, {type: string, values: Float32Array|Float64Array, valid: Uint8Array|null}>>}
 */
export async function readFloatColumns(ctx, columns, groups, numRows, into = {}) {
  const outputs = new Map(columns.map((c) => [c.name, outputInto(c, numRows, into[c.name], ctx.name)]));
  await readTasks(ctx, chunkTasks(columns, groups), outputs);
  return finishedOutputs(outputs);
}

/**
 * The outputs (column name -> outputFor()'s, read) as a read returns them: {type, values, valid},
 * valid null for a column without nulls; the reading's own fields left behind.
 */
export function finishedOutputs(outputs) {
  return new Map([...outputs].map(([name, out]) => [name, { type: out.type, values: out.values, valid: out.nulls > 0 ? out.valid : null }]));
}

/** One task per (row group, column), in file order; `dst` is where the group's rows go. */
export function chunkTasks(columns, groups) {
  const tasks = [];
  let dst = 0;
  for (const group of groups) {
    for (const column of columns) tasks.push({ group, column, dst });
    dst += group.selEnd - group.selStart;
  }
  return tasks;
}

/** Reads the tasks' chunks into outputs (column name -> outputFor()), counting nulls. */
export async function readTasks(ctx, tasks, outputs) {
  const scratch = scratchSpace();
  ctx.chunkBuffer?.reserve?.(largestChunk(ctx, tasks));
  let started = 0;
  for (let i = 0; i < tasks.length; i++) {
    // Chunks are fetched readAhead tasks ahead of the one decoding.
    for (; started < tasks.length && started <= i + ctx.readAhead; started++) {
      const t = tasks[started];
      t.fetched = fetchChunk(ctx, t.column, t.group);
      t.fetched.catch(() => {}); // surfaces when its turn comes
    }
    const task = tasks[i];
    const fetched = await task.fetched;
    task.fetched = null; // the chunk's bytes go once decoded
    // An abort stops the decoding too, not only the fetches (a local file's are all done at once).
    if (ctx.signal?.aborted) throw abortError(ctx.signal, `parquet: reading ${ctx.name}`, ParquetError, { file: ctx.name });
    await decodeChunk(fetched, task, outputs.get(task.column.name), scratch);
  }
}

// The largest whole chunk the tasks read (bad ranges are left to their reader to report).
function largestChunk(ctx, tasks) {
  let largest = 0;
  for (const { column, group } of tasks) {
    const chunk = ctx.metadata.row_groups[group.index]?.columns[column.leafIndex];
    if (!chunk || usesOffsetIndex(chunk, group)) continue;
    try {
      const { start, end } = chunkRange(chunk, ctx.fileSize);
      largest = Math.max(largest, end - start);
    } catch {
      // reported with its column and row group when the chunk is read
    }
  }
  return largest;
}

async function fetchChunk(ctx, column, group) {
  const { chunk, col, where } = await chunkColumn(ctx, column, group);
  const pages = await chunkPages(ctx.file, ctx.fileSize, chunk, group, where, { prefetched: ctx.prefetched, place: ctx.chunkBuffer?.place });
  return { pages, col, where };
}

async function decodeChunk({ pages, col, where }, { group, dst }, out, scratch) {
  const dictionary = await groupDictionary(pages, col, where);
  // The wasm scratch for the pages' levels and nulls, made before any page's bytes are looked at:
  // a page's bytes are a view of the ALP module's memory, which making it may grow. (Values are
  // spread there for ALP pages read into JS arrays; a readView's are spread in place.)
  if (col.maxDef > 0) {
    const rows = pages.data.reduce((most, p) => Math.max(most, pageValueCount(p)), 0);
    scratch.wasm.reserve(rows, !out.view && pages.data.some((p) => p.encodingId === ALP_ENCODING_ID));
  }
  try {
    await decodePages(pages, col, where, group, dst, out, dictionary, scratch);
  } finally {
    scratch.wasm.release(); // (held only while a chunk decodes)
  }
}

// A data page's value count as its header states it (splitPage checks it).
const pageValueCount = (p) => Number((p.type === 'DATA_PAGE_V2' ? p.header.data_page_header_v2 : p.header.data_page_header)?.num_values) || 0;

async function decodePages(pages, col, where, group, dst, out, dictionary, scratch) {
  for (const p of pages.data) {
    const a = Math.max(group.selStart - p.rowStart, 0);
    const b = Math.min(group.selEnd - p.rowStart, p.rows);
    const at = dst + p.rowStart + a - group.selStart;
    if (at + b - a > out.values.length) throw columnError({ ...where, page: p.number }, 'the pages hold more rows than the row groups say');
    try {
      let body = bodyOf(pages, p);
      let inflated = inflatePage(body, p, col);
      if (isPromise(inflated)) {
        inflated = await inflated;
        body = bodyOf(pages, p); // (made again: memory grown meanwhile by other work detaches it; a v2 page's levels are read from it)
      }
      // (an output in wasm memory goes as itself: its values are re-made after the ALP call)
      out.nulls += decodePageInto(body, inflated, p, col, dictionary, a, b, out.view ? out : out.values, () => validityOf(out, where), at, scratch);
    } catch (msg) {
      if (msg instanceof ParquetError) throw msg; // (out of memory: validityOf)
      throw columnError({ ...where, page: p.number }, msg);
    }
  }
}

/**
 * The column's pages for a decoder elsewhere (a Web Worker): ALP pages as their payload bytes
 * (decode with alp.decode), other pages decoded here; each with its rows and validity.
 */
export async function columnPagesFor(ctx, column, groups) {
  const dtype = column.type === 'FLOAT' ? 'f32' : 'f64';
  const out = [];
  for (const group of groups) {
    const { pages, col, where } = await fetchChunk(ctx, column, group);
    const dictionary = await groupDictionary(pages, col, where);
    for (const p of pages.data) {
      const at = { ...where, page: p.number };
      const base = { rowGroup: group.index, page: p.number, rowStart: group.start + p.rowStart, numRows: p.rows, encoding: encodingName(p.encodingId) };
      try {
        const body = bodyOf(pages, p);
        let inflated = inflatePage(body, p, col);
        if (isPromise(inflated)) inflated = await inflated;
        const valid = col.maxDef > 0 ? new Uint8Array(p.rows).fill(1) : null;
        if (p.encodingId === ALP_ENCODING_ID) {
          const split = splitPage(body, inflated, p, col);
          const present = valid ? pageValidity(split, p, col, valid, 0) : p.rows;
          const count = alpValueCount(split.payload);
          if (count !== present) throw typeof count === 'string' ? count : `the ALP payload holds ${count} values but the page has ${present} non-null values`;
          out.push({ ...base, alp: split.payload.slice(), valid: present < p.rows ? valid : null });
        } else {
          const values = dtype === 'f32' ? new Float32Array(p.rows) : new Float64Array(p.rows);
          const nulls = decodePageInto(body, inflated, p, col, dictionary, 0, p.rows, values, () => valid, 0, scratchSpace());
          out.push({ ...base, values, valid: nulls > 0 ? valid : null });
        }
      } catch (msg) {
        if (msg instanceof Error && msg.name === 'ParquetError') throw msg;
        throw columnError(at, msg);
      }
    }
  }
  return { dtype, pages: out };
}
