// Definition levels and dictionary indices: the RLE / bit-packed hybrid runs are decoded by
// hyparquet. Its decoder trusts the run headers (a damaged run count makes it write far past the
// output or loop for a long time), so the runs are first walked here, without decoding, to check
// that they fit the bytes and cover exactly the values the page header promises.
import { readRleBitPackedHybrid } from 'hyparquet/src/encoding.js';

/**
 * Checks the runs in bytes[start, end) hold `count` values of `bitWidth` bits.
 * @returns {string|null} what is wrong, or null
 */
export function checkRuns(bytes, start, end, bitWidth, count) {
  const valueBytes = (bitWidth + 7) >> 3;
  let pos = start;
  let seen = 0;
  while (seen < count) {
    if (pos >= end) return `runs end after ${seen} of ${count} values`;
    // ULEB128 run header, at most 5 bytes and below 2^32
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
    if (header & 1) {
      const groups = Math.floor(header / 2);
      if (groups === 0) return 'an empty bit-packed run';
      const values = groups * 8;
      // the last bit-packed run may pad up to 7 values past the count
      if (seen + values >= count + 8) return `a bit-packed run of ${values} values passes the ${count} values of the page`;
      pos += groups * bitWidth;
      if (pos > end) return `a bit-packed run needs ${pos - end} bytes more than there are`;
      seen += values;
    } else {
      const run = Math.floor(header / 2);
      if (run === 0) return 'an empty RLE run';
      if (seen + run > count) return `an RLE run of ${run} values passes the ${count} values of the page`;
      pos += valueBytes;
      if (pos > end) return 'an RLE run value is cut off';
      seen += run;
    }
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
