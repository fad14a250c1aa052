// Slice values as text, for JSON here and for the CSV that js/cli/output.js writes. Text keeps
// every value exact: float32 as the shortest decimal that reads back as the same float32, float16
// as the number its bits stand for, int64/uint64 as decimal integers (JSON: strings, as JSON
// numbers lose them), NaN and infinities as NaN, Infinity, -Infinity (JSON: strings).
import { formatF32, halfToNumber } from '../number-text.js';

export { formatF32 };


/**
 * A function that gives the exact text of one value of a slice.
 * @param {string} dataType Zarr data type (float32, int64, ...)
 * @param {boolean} float16Bits float16 values are bits (Uint16Array), not numbers
 */
export function valueFormatter(dataType, float16Bits = false) {
  const plain = (v) => (typeof v === 'number' && v === 0 && Object.is(v, -0) ? '-0' : String(v));
  if (dataType === 'float32') return formatF32;
  if (dataType === 'float16') return float16Bits ? (v) => plain(halfToNumber(v)) : (v) => plain(Number(v));
  return plain;
}

/** The number a value stands for (float16 bits decoded; 64-bit integers may round). */
export function valueNumber(dataType, float16Bits = false) {
  if (dataType === 'float16' && float16Bits) return halfToNumber;
  return Number;
}

/**
 * JSON text in pieces: {array, data_type, shape, slice, fill_value, values: [flat C order]}.
 * @returns {Generator<string>}
 */
export function* sliceJson(values, { array, shape, dataType, float16Bits, slice, fillValue }) {
  const text = valueFormatter(dataType, float16Bits);
  const asJson = (v) => {
    const s = text(v);
    if (typeof v === 'bigint' || !/^-?[\d.]+(e[-+]?\d+)?$/i.test(s)) return JSON.stringify(s);
    return s;
  };
  const head = { array, data_type: dataType, shape, slice, fill_value: fillValue };
  yield JSON.stringify(head).slice(0, -1) + ',"values":[';
  let parts = [];
  for (let i = 0; i < values.length; i++) {
    parts.push(asJson(values[i]));
    if (parts.length >= 4096) {
      yield parts.join(',') + (i + 1 < values.length ? ',' : '');
      parts = [];
    }
  }
  yield parts.join(',') + ']}\n';
}
