// A flat FLOAT / DOUBLE column over the selected row groups: its pages fetched and walked
// (chunk-pages.js), then decoded into one typed array plus a validity mask, or handed out page by
// page (readPages) for a decoder elsewhere.
import { encodingName, ALP_ENCODING_ID } from './pages.js';
import { decodeFloatPage, decodeDictionaryPage, splitDataPage } from './float-page.js';
import { alpValueCount } from './alp-page.js';
import { columnError } from './column-error.js';
import { chunkPages } from './chunk-pages.js';

/**
 * Fetches and walks, for each selected row group, the pages of a flat FLOAT / DOUBLE column
 * that hold the selected rows. Nothing is decoded yet.
 */
async function fetchColumnPages(ctx, column, groups) {
  const dtype = column.type === 'FLOAT' ? 'f32' : 'f64';
  const perGroup = [];
  for (const group of groups) {
    const where = { file: ctx.name, column: column.name, rowGroup: group.index };
    const chunk = ctx.metadata.row_groups[group.index].columns[column.leafIndex];
    const meta = chunk?.meta_data;
    if (meta && meta.type !== column.type) throw columnError(where, `the chunk's type ${meta.type} is not the schema's ${column.type}`);
    if (meta && Number(meta.num_values) !== group.rows) {
      throw columnError(where, `the chunk holds ${meta.num_values} values, the row group has ${group.rows} rows`);
    }
    const pages = await chunkPages(ctx.file, ctx.fileSize, chunk, group, where, ctx.prefetched);
    const col = {
      type: column.type,
      dtype,
      maxDef: column.maxDef,
      codec: meta.codec,
      compressors: ctx.compressors,
      chunkUncompressed: Number(meta.total_uncompressed_size) || undefined,
    };
    perGroup.push({ group, pages, col, where });
  }
  return perGroup;
}

function groupDictionary({ pages, col, where }) {
  if (!pages.dictionary) return null;
  const d = pages.dictionary;
  try {
    return decodeDictionaryPage(d.bytes.subarray(d.dataStart, d.dataEnd), d, col);
  } catch (msg) {
    throw columnError({ ...where, page: 'dictionary page' }, msg);
  }
}

/**
 * Reads a flat FLOAT / DOUBLE column over the selected row groups.
 * @param {{file: object, fileSize: number, metadata: object, compressors: object, name: string}} ctx
 * @param {{name: string, leafIndex: number, type: 'FLOAT'|'DOUBLE', maxDef: number}} column
 * @param {Array<{index: number, rows: number, selStart: number, selEnd: number}>} groups
 * @param {number} numRows
 */
export async function readFloatColumn(ctx, column, groups, numRows) {
  const dtype = column.type === 'FLOAT' ? 'f32' : 'f64';
  const perGroup = await fetchColumnPages(ctx, column, groups);
  // Every page that will be decoded has been walked and checked: the output is earned now.
  const values = dtype === 'f32' ? new Float32Array(numRows) : new Float64Array(numRows);
  const valid = column.maxDef > 0 ? new Uint8Array(numRows).fill(1) : null;
  let dst = 0;
  for (const entry of perGroup) {
    const { group, pages, col, where } = entry;
    const dictionary = groupDictionary(entry);
    for (const p of pages.data) {
      const a = Math.max(group.selStart - p.rowStart, 0);
      const b = Math.min(group.selEnd - p.rowStart, p.rows);
      if (dst + b - a > numRows) throw columnError({ ...where, page: p.number }, 'the pages hold more rows than the row groups say');
      try {
        decodeFloatPage(p.bytes.subarray(p.dataStart, p.dataEnd), p, col, dictionary, a, b, values, valid, dst);
      } catch (msg) {
        throw columnError({ ...where, page: p.number }, msg);
      }
      dst += b - a;
    }
  }
  if (dst !== numRows) throw columnError({ file: ctx.name, column: column.name }, `the pages gave ${dst} rows of the ${numRows} selected`);
  let anyNull = false;
  if (valid) for (let i = 0; i < valid.length && !anyNull; i++) anyNull = valid[i] === 0;
  return { type: column.type, values, valid: anyNull ? valid : null };
}

/**
 * The column's pages for a decoder elsewhere (a Web Worker): ALP pages as their payload bytes
 * (decode with alp.decode), other pages decoded here; each with its rows and validity.
 */
export async function columnPagesFor(ctx, column, groups) {
  const dtype = column.type === 'FLOAT' ? 'f32' : 'f64';
  const perGroup = await fetchColumnPages(ctx, column, groups);
  const out = [];
  for (const entry of perGroup) {
    const { group, pages, col, where } = entry;
    let dictionary;
    for (const p of pages.data) {
      const at = { ...where, page: p.number };
      const body = p.bytes.subarray(p.dataStart, p.dataEnd);
      const base = { rowGroup: group.index, page: p.number, rowStart: group.start + p.rowStart, numRows: p.rows, encoding: encodingName(p.encodingId) };
      try {
        if (p.encodingId === ALP_ENCODING_ID) {
          const { defs, nonNull, payload } = splitDataPage(body, p, col);
          const count = alpValueCount(payload);
          if (count !== nonNull) throw typeof count === 'string' ? count : `the ALP payload holds ${count} values but the page has ${nonNull} non-null values`;
          const valid = defs && nonNull < p.rows ? Uint8Array.from(defs, (d) => (d === col.maxDef ? 1 : 0)) : null;
          out.push({ ...base, alp: payload.slice(), valid });
        } else {
          dictionary ??= groupDictionary(entry);
          const values = dtype === 'f32' ? new Float32Array(p.rows) : new Float64Array(p.rows);
          const valid = col.maxDef > 0 ? new Uint8Array(p.rows).fill(1) : null;
          decodeFloatPage(body, p, col, dictionary, 0, p.rows, values, valid, 0);
          out.push({ ...base, values, valid: valid && valid.includes(0) ? valid : null });
        }
      } catch (msg) {
        if (msg instanceof Error && msg.name === 'ParquetError') throw msg;
        throw columnError(at, msg);
      }
    }
  }
  return { dtype, pages: out };
}
