// The numbers of array files: little-endian u32 / u64 values as JS numbers (Float64Array), and the
// monotonicity check every offset table gets.
//
// u64 values are exact up to 2^53 in a JS number; a larger one is reported as an error rather
// than rounded.
import { BpcellsError } from '../errors.js';

const TWO32 = 2 ** 32;

/** True on little-endian hosts (every engine we know): u32 payloads can then be viewed as they lie. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** u64 little-endian values -> numbers, refusing anything above 2^53 (`name`, `firstIndex`: for the error). */
export function u64ToNumbers(bytes, name, firstIndex = 0) {
  const n = bytes.length / 8;
  const out = new Float64Array(n);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < n; i++) {
    const lo = dv.getUint32(8 * i, true);
    const hi = dv.getUint32(8 * i + 4, true);
    if (hi >= 0x200000 && !(hi === 0x200000 && lo === 0)) {
      const big = (BigInt(hi) << 32n) | BigInt(lo);
      throw new BpcellsError(
        `${name}: entry ${firstIndex + i} is ${big}, above 2^53 (JS numbers cannot hold it exactly)`,
        { file: name },
      );
    }
    out[i] = hi * TWO32 + lo;
  }
  return out;
}

/** u32 little-endian values -> numbers. */
export function u32ToNumbers(bytes) {
  const n = bytes.length / 4;
  // Aligned bytes on a little-endian host: one native conversion (the seek tables at open).
  if (LITTLE_ENDIAN && bytes.byteOffset % 4 === 0) return new Float64Array(new Uint32Array(bytes.buffer, bytes.byteOffset, n));
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = dv.getUint32(4 * i, true);
  return out;
}

/**
 * Entries `firstIndex`.. of the offset table `name` must not decrease (idxptr, *_idx); the error
 * names the first pair that does.
 */
export function checkMonotone(ptr, firstIndex, name) {
  for (let i = 1; i < ptr.length; i++) {
    if (ptr[i] < ptr[i - 1]) {
      throw new BpcellsError(
        `${name}: not monotone, entry ${firstIndex + i} (${ptr[i]}) is less than entry ${firstIndex + i - 1} (${ptr[i - 1]})`,
        { file: name },
      );
    }
  }
}
