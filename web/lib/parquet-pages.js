// Worker side of the Parquet view: the pages of one column (from numdecode/parquet readPages on
// the page's main thread) become one array of values. ALP payloads are decoded here with
// numdecode's ALP decoder; rows come back in file order, bits kept, with which rows are null.

/**
 * @param {{decode: Function}} alp numdecode's alp namespace
 * @param {'f32'|'f64'} dtype
 * @param {Array<{numRows: number, alp?: ArrayBuffer, values?: ArrayBuffer, valid?: Uint8Array|null}>} pages
 * @returns {{values: Float32Array|Float64Array, nulls: number, valid: Uint8Array|null}} valid: 0 at
 *   the rows that are null (whose values are not the column's), null when none is
 */
export function assemblePages(alp, dtype, pages) {
  const Type = dtype === 'f32' ? Float32Array : Float64Array;
  const words = dtype === 'f32' ? 1 : 2;
  const total = pages.reduce((s, p) => s + p.numRows, 0);
  const values = new Type(total);
  const to = new Uint32Array(values.buffer);
  let at = 0;
  let nulls = 0;
  let valid = null;
  for (const p of pages) {
    if (p.values) {
      values.set(new Type(p.values), at);
    } else {
      const dense = alp.decode(new Uint8Array(p.alp), dtype);
      if (!p.valid) values.set(dense, at);
      else {
        const from = new Uint32Array(dense.buffer, dense.byteOffset, dense.length * words);
        let j = 0;
        for (let r = 0; r < p.numRows; r++) {
          if (!p.valid[r]) continue;
          for (let k = 0; k < words; k++) to[(at + r) * words + k] = from[j * words + k];
          j++;
        }
      }
    }
    if (p.valid) {
      for (let r = 0; r < p.numRows; r++) {
        if (p.valid[r]) continue;
        nulls++;
        (valid ??= new Uint8Array(total).fill(1))[at + r] = 0;
      }
    }
    at += p.numRows;
  }
  return { values, nulls, valid };
}
