// Definition levels and dictionary indices: RLE / bit-packed hybrid runs. Definition levels are
// read here straight into validity (one pass, checked as read); dictionary indices are decoded by
// hyparquet, whose decoder trusts the run headers (a damaged run count makes it write far past the
// output or loop for a long time), so their runs are first walked here to check that they fit the
// bytes and cover exactly the values the page header promises.
import { readRleBitPackedHybrid } from 'hyparquet/src/encoding.js';

// nextRun's answer, reused: a page of 1 % nulls has some 500 runs, each read at once.
const RUN = { packed: false, values: 0, data: 0, next: 0 };

function run(packed, values, data, next) {
  RUN.packed = packed;
  RUN.values = values;
  RUN.data = data;
  RUN.next = next;
  return RUN;
}

/**
 * The run of the hybrid encoding whose header is at bytes[pos], checked against the bytes and the
 * `count` values the runs must cover (`seen` so far): {packed, values (how many of the count it
 * covers), data (where its bytes start), next (where the next run starts)}, valid until the next
 * call, or what is wrong.
 */
function nextRun(bytes, pos, end, bitWidth, seen, count) {
  if (pos >= end) return `runs end after ${seen} of ${count} values`;
  // ULEB128 run header, at most 5 bytes and below 2^31
  let header = 0;
  let shift = 0;
  for (;;) {
    if (pos >= end) return `a run header is cut off after ${seen} of ${count} values`;
    const b = bytes[pos++];
    header += (b & 0x7f) * 2 ** shift;
    if (!(b & 0x80)) break;
    shift += 7;
    if (shift > 28) return 'a run header is longer than 5 bytes';
  }
  if (header > 0x7fffffff) return `run header ${header} is out of range`;
  const n = header >>> 1;
  if (header & 1) {
    if (n === 0) return 'an empty bit-packed run';
    // the last bit-packed run may pad up to 7 values past the count
    if (seen + n * 8 >= count + 8) return `a bit-packed run of ${n * 8} values passes the ${count} values of the page`;
    if (pos + n * bitWidth > end) return `a bit-packed run needs ${pos + n * bitWidth - end} bytes more than there are`;
    return run(true, Math.min(n * 8, count - seen), pos, pos + n * bitWidth);
  }
  if (n === 0) return 'an empty RLE run';
  if (seen + n > count) return `an RLE run of ${n} values passes the ${count} values of the page`;
  const valueBytes = (bitWidth + 7) >> 3;
  if (pos + valueBytes > end) return 'an RLE run value is cut off';
  return run(false, n, pos, pos + valueBytes);
}

/**
 * Checks the runs in bytes[start, end) hold `count` values of `bitWidth` bits.
 * @returns {string|null} what is wrong, or null
 */
export function checkRuns(bytes, start, end, bitWidth, count) {
  let pos = start;
  let seen = 0;
  while (seen < count) {
    const r = nextRun(bytes, pos, end, bitWidth, seen, count);
    if (typeof r === 'string') return r;
    seen += r.values;
    pos = r.next;
  }
  return null;
}

/**
 * Decodes `count` hybrid-coded values from bytes[start, end) after checking the runs.
 * @returns {Uint8Array|Uint32Array|string} the values, or what is wrong
 */
export function decodeRuns(bytes, start, end, bitWidth, count) {
  const problem = checkRuns(bytes, start, end, bitWidth, count);
  if (problem) return problem;
  const out = bitWidth <= 8 ? new Uint8Array(count) : new Uint32Array(count);
  if (count === 0) return out;
  const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: start };
  readRleBitPackedHybrid(reader, bitWidth, out, end - start);
  return out;
}

/** Bits needed for levels up to maxLevel. */
export function levelBitWidth(maxLevel) {
  return 32 - Math.clz32(maxLevel);
}

/**
 * Definition levels in bytes[start, end) (hybrid runs of `bitWidth` <= 8 bits, `count` levels)
 * as validity, checked as they are read: out[at, at + count) must hold 1s (present), and a 0 is
 * written where level i is below maxDef (null). Only the nulls are written: a run of present
 * values costs nothing. One pass, no array of levels.
 * @returns {number|string} how many values are present, or what is wrong
 */
export function readValidity(bytes, start, end, bitWidth, count, maxDef, out, at) {
  const mask = (1 << bitWidth) - 1;
  let pos = start;
  let seen = 0;
  let present = 0;
  while (seen < count) {
    const r = nextRun(bytes, pos, end, bitWidth, seen, count);
    if (typeof r === 'string') return r;
    pos = r.next;
    const n = r.values;
    const data = r.data;
    if (r.packed) {
      let o = at + seen;
      if (bitWidth === 1) {
        // maxDef is 1: the bits are the validity, eight to a byte; an all-present byte (the
        // common one) writes nothing
        let q = data;
        for (let left = n; left > 0; left -= 8) {
          const byte = bytes[q++];
          const take = left < 8 ? left : 8;
          if (byte === 0xff && take === 8) present += 8;
          else {
            for (let k = 0; k < take; k++) {
              if ((byte >>> k) & 1) present++;
              else out[o + k] = 0;
            }
          }
          o += take;
        }
      } else {
        let buf = 0;
        let bits = 0;
        let p = data;
        for (let i = 0; i < n; i++) {
          while (bits < bitWidth) {
            buf |= bytes[p++] << bits;
            bits += 8;
          }
          const level = buf & mask;
          buf >>>= bitWidth;
          bits -= bitWidth;
          if (level > maxDef) return `definition level ${level} at value ${seen + i} exceeds the column's maximum ${maxDef}`;
          if (level === maxDef) present++;
          else out[o] = 0;
          o++;
        }
      }
      seen += n;
    } else {
      const level = bytes[data]; // levels of <= 8 bits take one byte
      if (level > maxDef) return `definition level ${level} at value ${seen} exceeds the column's maximum ${maxDef}`;
      if (level === maxDef) present += n;
      else out.fill(0, at + seen, at + seen + n);
      seen += n;
    }
  }
  return present;
}
