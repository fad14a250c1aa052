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

export interface InitOptions {
  /**
   * Which build to load: true = SIMD128, false = scalar, 'auto' (default) = SIMD when the
   * engine validates a SIMD module, else scalar.
   */
  simd?: boolean | 'auto';
  /** The .wasm bytes of the chosen build, when the default location (next to the .mjs) will not do. */
  wasmBinary?: ArrayBuffer | ArrayBufferView;
  /** The chosen build already compiled (e.g. WebAssembly.compileStreaming, or shared with a worker). */
  module?: WebAssembly.Module;
  /** Where to fetch the chosen build's .wasm from (a file: URL is read from disk in Node). */
  wasmUrl?: string | URL;
}

export interface BuildInfo {
  /** True when the loaded module's kernels use SIMD128. */
  simd: boolean;
  /** Library version (equals the npm package version). */
  version: string;
}

/**
 * Loads the WebAssembly module once; concurrent and later calls share that load.
 * Rejects if a later call explicitly asks for the other build than the one loaded.
 */
export function init(options?: InitOptions): Promise<typeof import('./index.js')>;
/** Facts about the loaded module; throws if init() has not finished. */
export function buildInfo(): BuildInfo;
/** True when this engine can run the SIMD build. */
export function simdSupported(): boolean;
/** All dtype names, in a fixed order. */
export const DTYPES: readonly Dtype[];

// Internal helpers shared by the format wrappers.
export function getModule(): any;
export function binding(name: string): (...args: any[]) => any;
export function withInputs<R>(arrays: Uint8Array[], fn: (...ptrAndLen: number[]) => R): R;
export function isDtype(dtype: unknown): dtype is Dtype;
export function typedArrayFor<D extends Dtype>(dtype: D): { new (length: number): DtypeArrayMap[D] };
export function viewAs<D extends Dtype>(dtype: D, bytes: Uint8Array): DtypeArrayMap[D];
