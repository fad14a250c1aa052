// Which decoded ALP values are exceptions. The page stores each exception's position, but the
// public API reports only the count per vector, so the demo finds the positions the way the
// encoder chose them: a value is an exception when its vector's (exponent, factor) cannot
// carry it (NaN, -0, out of the integer range, or decode(encode(v)) != v, in the page's own
// float precision). The per-vector counts from inspect() check the result.

const F64_POW10 = Array.from({ length: 19 }, (_, k) => Number(`1e${k}`));
const F64_POW10_INV = Array.from({ length: 19 }, (_, k) => Number(`1e-${k}`));
const F32_POW10 = F64_POW10.slice(0, 11).map(Math.fround);
const F32_POW10_INV = F64_POW10_INV.slice(0, 11).map(Math.fround);
const F32_ROUND_MAGIC = 12582912; // 2^23 + 2^22
const F64_ROUND_MAGIC = 6755399441055744; // 2^52 + 2^51
const F32_LIMIT = 2147483520;
const F64_LIMIT = 9223372036854774784;

function isExceptionF32(v, e, f) {
  if (v !== v || (v === 0 && Object.is(v, -0))) return true;
  const f32 = Math.fround;
  const scaled = f32(f32(v * F32_POW10[e]) * F32_POW10_INV[f]);
  if (!(scaled >= -F32_LIMIT && scaled <= F32_LIMIT)) return true;
  const encoded = f32(f32(scaled + F32_ROUND_MAGIC) - F32_ROUND_MAGIC);
  const decoded = f32(f32(encoded * F32_POW10[f]) * F32_POW10_INV[e]);
  return decoded !== v;
}

function isExceptionF64(v, e, f) {
  if (v !== v || (v === 0 && Object.is(v, -0))) return true;
  const scaled = v * F64_POW10[e] * F64_POW10_INV[f];
  if (!(scaled >= -F64_LIMIT && scaled <= F64_LIMIT)) return true;
  // The reference encoder rounds with the magic number whatever the magnitude: past 2^51 that
  // no longer gives the nearest integer, the value does not come back, and it is an exception.
  const encoded = scaled + F64_ROUND_MAGIC - F64_ROUND_MAGIC;
  const decoded = encoded * F64_POW10[f] * F64_POW10_INV[e];
  return decoded !== v;
}

/**
 * Positions (page-wide) of the values that are exceptions, and how many vectors disagree with
 * the counts the page declares.
 * @param {Float32Array|Float64Array} values decoded page
 * @param {'f32'|'f64'} dtype
 * @param {Array<{firstValue:number,numValues:number,exponent:number,factor:number,exceptions:number}>} vectors
 */
export function findExceptions(values, dtype, vectors) {
  const test = dtype === 'f32' ? isExceptionF32 : isExceptionF64;
  const positions = [];
  const mismatched = [];
  for (const vec of vectors) {
    if (vec.error !== undefined) continue;
    const before = positions.length;
    const end = Math.min(values.length, vec.firstValue + vec.numValues);
    for (let i = vec.firstValue; i < end; i++) {
      if (test(values[i], vec.exponent, vec.factor)) positions.push(i);
    }
    if (positions.length - before !== vec.exceptions) mismatched.push(vec.index);
  }
  return { positions: Uint32Array.from(positions), mismatchedVectors: mismatched };
}
