// inspect(): the footer's schema and row groups, and a walk over every column chunk's pages.
// Pages of flat columns are opened far enough to count nulls; ALP pages are described by
// numdecode's ALP inspector (layout, vectors, exceptions, bit widths).
import { readPageHeaderAt, encodingName, ALP_ENCODING_ID } from './pages.js';
import { chunkRange } from './chunk-pages.js';
import { columnError } from './column-error.js';
import { inflatePage, isPromise, splitPage, pageValidity } from './float-page.js';
import { knownCodec } from './pages.js';
import { loadCodec } from './codecs.js';
import { describeAlpPayload } from './alp-page.js';
import { leafColumns, describeFooter } from './footer.js';

const PAGE_KIND = { DICTIONARY_PAGE: 'dictionary', DATA_PAGE: 'data v1', DATA_PAGE_V2: 'data v2', INDEX_PAGE: 'index' };

async function describePage(bytes, info, leaf, col, where) {
  const h = info.header;
  const page = {
    type: PAGE_KIND[info.type],
    offset: info.fileOffset,
    headerBytes: info.dataStart - info.offsetInChunk,
    compressedBytes: h.compressed_page_size,
    uncompressedBytes: h.uncompressed_page_size,
  };
  if (info.encodingId !== undefined) page.encoding = encodingName(info.encodingId);
  if (info.type === 'DICTIONARY_PAGE') page.numValues = h.dictionary_page_header.num_values;
  if (info.type === 'DATA_PAGE') page.numValues = h.data_page_header.num_values;
  if (info.type === 'DATA_PAGE_V2') {
    const v2 = h.data_page_header_v2;
    Object.assign(page, { numValues: v2.num_values, numNulls: v2.num_nulls, numRows: v2.num_rows, compressed: v2.is_compressed !== false });
  }
  const isData = info.type === 'DATA_PAGE' || info.type === 'DATA_PAGE_V2';
  const flat = leaf.maxRep === 0 && leaf.maxDef <= 1;
  if (isData && flat) {
    let split;
    let present;
    try {
      if (col.inflate === undefined) throw { unsupported: `codec ${col.codec} is not supported` };
      const body = bytes.subarray(info.dataStart, info.dataEnd);
      let inflated = inflatePage(body, info, col);
      if (isPromise(inflated)) inflated = await inflated;
      split = splitPage(body, inflated, info, col);
      present = col.maxDef > 0 ? pageValidity(split, info, col, new Uint8Array(split.numValues).fill(1), 0) : split.numValues;
    } catch (msg) {
      throw columnError(where, msg);
    }
    page.numNulls = page.numValues - present;
    page.numRows = page.numValues;
    const isFloat = leaf.element.type === 'FLOAT' || leaf.element.type === 'DOUBLE';
    if (info.encodingId === ALP_ENCODING_ID && isFloat) {
      page.alp = describeAlpPayload(split.payload, leaf.element.type === 'FLOAT' ? 'f32' : 'f64');
      if (page.alp.numElements !== undefined && page.alp.numElements !== present) {
        throw columnError(where, `the ALP payload holds ${page.alp.numElements} values but the page has ${present} non-null values`);
      }
    }
  }
  return page;
}

// The leaves (by index) that `names` select: a name is a leaf's path ("point.x") or a top-level
// field, which selects all its leaves. null: every leaf.
function selectedLeaves(leaves, names, name) {
  if (names === undefined || names === null) return null;
  if (!Array.isArray(names)) throw new TypeError('parquet inspect: options.columns must be an array of column names');
  const chosen = new Set();
  for (const n of names) {
    const hits = leaves.flatMap((leaf, i) => (leaf.path === n || leaf.path.startsWith(`${n}.`) ? [i] : []));
    if (hits.length === 0) throw new RangeError(`parquet: no column ${JSON.stringify(n)} in ${name} (columns: ${leaves.map((l) => l.path).join(', ')})`);
    for (const i of hits) chosen.add(i);
  }
  return chosen;
}

/**
 * The footer's facts and every page of the column chunks read. `columns` (names as read() takes
 * them, or leaf paths): only those columns' chunks are read and listed, each row group's `columns`
 * holding just them; else every chunk.
 */
export async function inspectFile(file, name, footer, columns) {
  const { metadata, schema, size } = footer;
  const leaves = leafColumns(schema);
  const only = selectedLeaves(leaves, columns, name);
  const described = describeFooter(footer, name); // what the footer says; the pages are added here
  // Every chunk in one readRanges: adjacent chunks share requests. A bad range is reported below.
  const wanted = [];
  for (const rg of metadata.row_groups) {
    for (const [c, chunk] of rg.columns.entries()) {
      if (only && !only.has(c)) continue;
      try {
        const { start, end } = chunkRange(chunk, size);
        if (end > start) wanted.push([start, end]);
      } catch {
        continue; // reported with its column and row group below
      }
    }
  }
  const fetched = new Map();
  (await file.readRanges(wanted)).forEach((bytes, i) => fetched.set(`${wanted[i][0]}:${wanted[i][1]}`, bytes));
  const rowGroups = [];
  for (const [g, rg] of metadata.row_groups.entries()) {
    const chunks = [];
    for (const [c, chunk] of rg.columns.entries()) {
      if (only && !only.has(c)) continue;
      const leaf = leaves[c];
      const meta = chunk.meta_data;
      const where = { file: name, column: leaf.path, rowGroup: g };
      let range;
      try {
        range = chunkRange(chunk, size);
      } catch (msg) {
        throw columnError(where, msg);
      }
      const bytes = fetched.get(`${range.start}:${range.end}`) ?? (await file.read(range.start, range.end));
      const col = {
        maxDef: leaf.maxDef,
        maxRep: leaf.maxRep,
        codec: meta.codec,
        // undefined: a codec numdecode does not know (reported with the page that needs it)
        inflate: knownCodec(meta.codec) ? await loadCodec(meta.codec) : undefined,
        chunkUncompressed: Number(meta.total_uncompressed_size) || undefined,
      };
      const pages = [];
      let dataPages = 0; // errors name data pages by their index, as read() does
      for (let offset = 0; offset < bytes.length; ) {
        let info;
        try {
          info = readPageHeaderAt(bytes, offset, bytes.length, range.start);
        } catch (msg) {
          throw columnError({ ...where, page: dataPages }, msg);
        }
        info.fileOffset = range.start + offset;
        info.offsetInChunk = offset;
        const isData = info.type === 'DATA_PAGE' || info.type === 'DATA_PAGE_V2';
        pages.push(await describePage(bytes, info, leaf, col, { ...where, page: isData ? dataPages : `${info.type.toLowerCase().replace('_', ' ')}` }));
        if (isData) dataPages++;
        offset = info.dataEnd;
      }
      // The chunk's encoding list, with the ids hyparquet has no name for taken from the pages.
      const pageEncodings = new Set(pages.map((p) => p.encoding).filter(Boolean));
      const encodings = (meta.encodings ?? []).map((e) => e ?? (pageEncodings.has('ALP') ? 'ALP' : 'UNKNOWN'));
      chunks.push({ ...described.rowGroups[g].columns[c], encodings, offset: range.start, pages });
    }
    rowGroups.push({ index: g, numRows: Number(rg.num_rows), totalByteSize: Number(rg.total_byte_size), columns: chunks });
  }
  return { ...described, rowGroups };
}
