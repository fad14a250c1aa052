// A FLOAT / DOUBLE leaf inside one list (one repeated field on its path, "tags.list.element"),
// read by numdecode like the flat ones: per page the repetition levels say where rows start, the
// definition levels whether a row's list is null or empty and whether an element is null, and the
// page's values (ALP or any other encoding) are decoded once and placed in element order. The
// result is Arrow-like: values and valid per element, offsets per row (row r's elements are
// offsets[r] ... offsets[r + 1]), rowValid per row (0 = the list itself is null).
import { decodeRuns, levelBitWidth } from './levels.js';
import { inflatePage, isPromise, denseInto } from './float-page.js';
import { columnError } from './column-error.js';
import { chunkPages } from './chunk-pages.js';
import { chunkColumn, bodyOf, groupDictionary } from './float-column.js';


// The page's repetition and definition levels (one byte each per value) and its value payload.
function pageLevels(body, inflated, page, col) {
  const h = page.header;
  const n = page.type === 'DATA_PAGE' ? h.data_page_header.num_values : h.data_page_header_v2.num_values;
  const defWidth = levelBitWidth(col.maxDef);
  let rep;
  let def;
  let payload;
  if (page.type === 'DATA_PAGE') {
    // v1: [u32 length][repetition runs][u32 length][definition runs][values], all compressed
    const view = new DataView(inflated.buffer, inflated.byteOffset, inflated.byteLength);
    let pos = 0;
    const runs = (width, what) => {
      if (pos + 4 > inflated.length) throw `the page is too short for its ${what} levels`;
      const len = view.getUint32(pos, true);
      if (pos + 4 + len > inflated.length) throw `${what} levels claim ${len} bytes but the page has ${inflated.length - pos - 4}`;
      const levels = decodeRuns(inflated, pos + 4, pos + 4 + len, width, n);
      if (typeof levels === 'string') throw `${what} levels: ${levels}`;
      pos += 4 + len;
      return levels;
    };
    rep = runs(1, 'repetition');
    def = runs(defWidth, 'definition');
    payload = inflated.subarray(pos);
  } else {
    // v2: the levels stored uncompressed before the values
    const v2 = h.data_page_header_v2;
    const rl = v2.repetition_levels_byte_length;
    const dl = v2.definition_levels_byte_length;
    rep = decodeRuns(body, 0, rl, 1, n);
    if (typeof rep === 'string') throw `repetition levels: ${rep}`;
    def = decodeRuns(body, rl, rl + dl, defWidth, n);
    if (typeof def === 'string') throw `definition levels: ${def}`;
    payload = inflated;
  }
  return { n, rep, def, payload };
}

/**
 * Reads a list's FLOAT / DOUBLE leaf over the selected row groups.
 * @param {{name: string, leafIndex: number, type: string, maxDef: number, maxRep: 1, repDef: number, listNullDef: number}} column
 *   repDef: the definition level at which an element exists; listNullDef: below it the list is null
 * @returns {Promise<{type: string, values: Float32Array|Float64Array, valid: Uint8Array|null,
 *   offsets: Int32Array, rowValid: Uint8Array|null}>}
 */
export async function readListColumn(ctx, column, groups, numRows) {
  const Type = column.type === 'FLOAT' ? Float32Array : Float64Array;
  const words = Type.BYTES_PER_ELEMENT / 4;
  // elements are at most the chunks' values
  let capacity = 0;
  for (const g of groups) capacity += Number(ctx.metadata.row_groups[g.index].columns[column.leafIndex]?.meta_data?.num_values ?? 0);
  const values = new Type(capacity);
  const to = new Uint32Array(values.buffer);
  const valid = new Uint8Array(capacity).fill(1);
  const offsets = new Int32Array(numRows + 1);
  const rowValid = new Uint8Array(numRows).fill(1);
  let dense = new Type(0);
  let slot = 0;
  let nullElements = 0;
  let nullLists = 0;
  let dst = 0; // output row of the group's first selected row
  for (const group of groups) {
    const { chunk, col, where } = await chunkColumn(ctx, column, group);
    const pages = await chunkPages(ctx.file, ctx.fileSize, chunk, group, where, { prefetched: ctx.prefetched, repeated: true });
    const dictionary = await groupDictionary(pages, col, where);
    let row = -1; // row of the group the entries belong to
    for (const p of pages.data) {
      try {
        const body = bodyOf(pages, p);
        let inflated = inflatePage(body, p, col);
        if (isPromise(inflated)) inflated = await inflated;
        const { n, rep, def, payload } = pageLevels(body, inflated, p, col);
        if (n > 0 && rep[0] !== 0 && row < 0) throw 'the first value of the chunk continues a row (repetition level 1)';
        let present = 0;
        for (let i = 0; i < n; i++) {
          if (def[i] > col.maxDef) throw `definition level ${def[i]} at value ${i} exceeds the column's maximum ${col.maxDef}`;
          if (rep[i] > 1) throw `repetition level ${rep[i]} at value ${i} in a list of one level`;
          if (def[i] === col.maxDef) present++;
        }
        if (dense.length < present) dense = new Type(present);
        denseInto(p.encodingId, payload, col, dictionary, present, 0, present, dense, 0);
        const from = new Uint32Array(dense.buffer);
        let k = 0; // next dense value
        for (let i = 0; i < n; i++) {
          if (rep[i] === 0) {
            row++;
            if (row >= group.rows) throw `the pages hold more than the row group's ${group.rows} rows`;
            if (row >= group.selStart && row < group.selEnd) {
              const r = dst + row - group.selStart;
              offsets[r] = slot;
              if (def[i] < column.listNullDef) {
                rowValid[r] = 0;
                nullLists++;
              }
            }
          }
          const selected = row >= group.selStart && row < group.selEnd;
          const d = def[i];
          if (d === col.maxDef) {
            if (selected) {
              for (let w = 0; w < words; w++) to[slot * words + w] = from[k * words + w];
              slot++;
            }
            k++;
          } else if (d >= column.repDef && selected) {
            valid[slot] = 0; // a null element (values[slot] stays 0)
            nullElements++;
            slot++;
          }
        }
      } catch (msg) {
        throw columnError({ ...where, page: p.number }, msg);
      }
    }
    if (row + 1 !== group.rows) throw columnError(where, `the repetition levels hold ${row + 1} rows, the row group has ${group.rows}`);
    dst += group.selEnd - group.selStart;
  }
  offsets[numRows] = slot;
  return {
    type: column.type,
    values: values.subarray(0, slot),
    valid: nullElements ? valid.subarray(0, slot) : null,
    offsets,
    rowValid: nullLists ? rowValid : null,
  };
}
