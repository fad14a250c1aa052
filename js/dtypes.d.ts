// Declarations of dtypes.js: the dtype names and the typed array each decodes to.
/** Element types the decoders produce. 'f16' values are delivered as their raw 16 bits. */
export type Dtype = 'u8' | 'i8' | 'u16' | 'i16' | 'f16' | 'u32' | 'i32' | 'f32' | 'u64' | 'i64' | 'f64';

/** The typed array each dtype decodes to. */
export interface DtypeArrayMap {
  u8: Uint8Array;
  i8: Int8Array;
  u16: Uint16Array;
  i16: Int16Array;
  /** IEEE half-precision bits. */
  f16: Uint16Array;
  u32: Uint32Array;
  i32: Int32Array;
  f32: Float32Array;
  u64: BigUint64Array;
  i64: BigInt64Array;
  f64: Float64Array;
}

/** Any array a decoder can return. */
export type DecodedArray = DtypeArrayMap[Dtype];

/** All dtype names, in a fixed order. */
export const DTYPES: readonly Dtype[];
export function isDtype(dtype: unknown): dtype is Dtype;
/** The typed-array class for a dtype ('f16' gives Uint16Array: the bits). */
export function typedArrayFor<D extends Dtype>(dtype: D): { new (length: number): DtypeArrayMap[D] };
/** Views little-endian bytes as the typed array for dtype (copies only if misaligned). */
export function viewAs<D extends Dtype>(dtype: D, bytes: Uint8Array): DtypeArrayMap[D];

/** Half-precision bits (f16 data decodes to a Uint16Array of them) as float32 values; exact. */
export function toFloat32(bits: Uint16Array | ArrayLike<number>): Float32Array;
export function toFloat32(bits: number): number;
