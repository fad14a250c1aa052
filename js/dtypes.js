// The dtype names every decoder uses, and the typed array each decodes to.
import { NumdecodeError } from './errors.js';

const TYPED_ARRAYS = {
  u8: Uint8Array,
  i8: Int8Array,
  u16: Uint16Array,
  i16: Int16Array,
  f16: Uint16Array, // the raw IEEE half-precision bits
  u32: Uint32Array,
  i32: Int32Array,
  f32: Float32Array,
  u64: BigUint64Array,
  i64: BigInt64Array,
  f64: Float64Array,
};

/** The dtype names every decoder uses. */
export const DTYPES = Object.freeze(Object.keys(TYPED_ARRAYS));

export function isDtype(dtype) {
  return typeof dtype === 'string' && Object.hasOwn(TYPED_ARRAYS, dtype);
}

/** The typed-array class for a dtype ('f16' gives Uint16Array: the bits). */
export function typedArrayFor(dtype) {
  if (!isDtype(dtype)) throw new TypeError(`numdecode: unknown dtype ${JSON.stringify(dtype)} (one of ${DTYPES.join(', ')})`);
  return TYPED_ARRAYS[dtype];
}

/** Views a Uint8Array of little-endian values as the typed array for dtype (copies only if misaligned). */
export function viewAs(dtype, u8) {
  const Type = typedArrayFor(dtype);
  const size = Type.BYTES_PER_ELEMENT;
  if (u8.byteLength % size !== 0) {
    throw new NumdecodeError(`numdecode: ${u8.byteLength} bytes is not a whole number of ${dtype} values`);
  }
  if (u8.byteOffset % size !== 0) u8 = u8.slice();
  return new Type(u8.buffer, u8.byteOffset, u8.byteLength / size);
}

// One half-precision value from its bits (sign, 5 exponent bits, 10 fraction bits).
function half(b) {
  const mag = (b & 0x7c00) === 0 ? (b & 0x3ff) * 2 ** -24 : (b & 0x7c00) === 0x7c00 ? (b & 0x3ff ? NaN : Infinity) : ((b & 0x3ff) + 1024) * 2 ** (((b >> 10) & 31) - 25);
  return b & 0x8000 ? -mag : mag;
}

/**
 * Half-precision bits (f16 data decodes to a Uint16Array of them, or one number) as float32
 * values: every half-precision value is exact in float32 (NaN stays NaN).
 */
export function toFloat32(bits) {
  if (typeof bits === 'number') return half(bits & 0xffff);
  if (bits === null || typeof bits !== 'object' || typeof bits.length !== 'number') {
    throw new TypeError('numdecode.toFloat32: pass a Uint16Array of half-precision bits (or one number)');
  }
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = half(bits[i] & 0xffff);
  return out;
}
