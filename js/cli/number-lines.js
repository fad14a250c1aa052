// Text of one number per line (CSV of one column) as the typed array of a dtype: integers exact
// (64-bit ones through BigInt), floats as JavaScript reads them (nan, inf and -inf too, any case),
// f16 rounded to its nearest half-precision bits. Blank lines are skipped; a first line that is
// not a number is a header and skipped too.
import { typedArrayFor } from '../dtypes.js';
import { numberToHalf } from '../number-text.js';

const INT_RANGE = { u8: [0, 255], i8: [-128, 127], u16: [0, 65535], i16: [-32768, 32767], u32: [0, 4294967295], i32: [-2147483648, 2147483647] };
const BIG_RANGE = { u64: [0n, 2n ** 64n - 1n], i64: [-(2n ** 63n), 2n ** 63n - 1n] };
const SPECIAL = { nan: NaN, inf: Infinity, '+inf': Infinity, '-inf': -Infinity, infinity: Infinity, '+infinity': Infinity, '-infinity': -Infinity };
const INTEGER = /^[+-]?\d+$/;

// The text of a field: one column, so a quoted value loses its quotes.
const unquote = (s) => (s.length >= 2 && s.startsWith('"') && s.endsWith('"') ? s.slice(1, -1).replaceAll('""', '"') : s);

function parseFloatText(text) {
  const special = SPECIAL[text.toLowerCase()];
  if (special !== undefined) return special;
  const x = Number(text);
  return text !== '' && !Number.isNaN(x) ? x : undefined;
}

// The value of one line for dtype, or undefined when it is not one.
function parseValue(text, dtype) {
  if (BIG_RANGE[dtype]) {
    if (!INTEGER.test(text)) return undefined;
    const v = BigInt(text);
    return v >= BIG_RANGE[dtype][0] && v <= BIG_RANGE[dtype][1] ? v : undefined;
  }
  if (INT_RANGE[dtype]) {
    if (!INTEGER.test(text)) return undefined;
    const v = Number(text);
    return v >= INT_RANGE[dtype][0] && v <= INT_RANGE[dtype][1] ? v : undefined;
  }
  const x = parseFloatText(text);
  if (x === undefined) return undefined;
  return dtype === 'f16' ? numberToHalf(x) : x;
}

/** The numbers of `text` (one a line) as a typed array of dtype (f16 as bits). */
export function parseNumberLines(text, dtype, source = 'input') {
  const lines = text.split(/\r?\n/);
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const line = unquote(lines[i].trim());
    if (line === '') continue;
    const v = parseValue(line, dtype);
    if (v === undefined) {
      if (out.length === 0 && i === lines.findIndex((l) => l.trim() !== '')) continue; // a header line
      throw new Error(`${source} line ${i + 1}: ${JSON.stringify(lines[i].trim())} is not a ${dtype} value`);
    }
    out.push(v);
  }
  return typedArrayFor(dtype).from(out);
}
