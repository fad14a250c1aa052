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

/** The formats that have a WebAssembly module of their own. */
export type WasmFormat = 'pco' | 'alp' | 'bpcells';

export interface InitOptions {
  /**
   * Which build to load: true = SIMD128, false = scalar, 'auto' (default) = SIMD when the
   * engine validates a SIMD module, else scalar. The first load chooses for every format.
   */
  simd?: boolean | 'auto';
  /**
   * Which formats' modules to load (default: all). The others load when first needed by an async
   * entry point (numdecode/zarr, numdecode/parquet, bpcells.open, worker jobs), or by a later init().
   */
  formats?: readonly WasmFormat[];
  /** The .wasm bytes of the chosen build of one format's module (only with a single format in `formats`). */
  wasmBinary?: ArrayBuffer | ArrayBufferView;
  /** One format's module already compiled (only with a single format in `formats`). */
  module?: WebAssembly.Module;
  /** Where to fetch one format's .wasm from (only with a single format in `formats`; a file: URL is read from disk in Node). */
  wasmUrl?: string | URL;
}

export interface BuildInfo {
  /** True when the loaded module's kernels use SIMD128. */
  simd: boolean;
  /** Library version (equals the npm package version). */
  version: string;
}

/** The formats that have a WebAssembly module of their own, in the order init() loads them. */
export const FORMATS: readonly WasmFormat[];

/**
 * Loads the WebAssembly modules of options.formats (default: all), each once; concurrent and later
 * calls share a load. Rejects if a later call explicitly asks for the other build than the one loaded.
 */
export function init(options?: InitOptions): Promise<typeof import('./index.js')>;
/** A light entry's init(): loads one format's module (options without `formats`, else a TypeError). */
export function loadOnly(format: WasmFormat, label: string, options?: Omit<InitOptions, 'formats'>): Promise<void>;
/** Loads the modules as init() does, without loading the rest of the package's JS. */
export function loadFormats(options?: InitOptions): Promise<void>;
/** Resolves to the format's module, loading it first if needed. */
export function ensureFormat(format: WasmFormat, initOptions?: InitOptions): Promise<any>;
/** True once the format's module is loaded. */
export function formatLoaded(format: WasmFormat): boolean;
/** Facts about the loaded modules; throws if none has loaded. */
export function buildInfo(): BuildInfo;
/** True when this engine can run the SIMD build (wasm SIMD128 and exception handling). */
export function simdSupported(): boolean;
/** Compressed input in a format's wasm memory (see wasmInput()). */
export interface WasmInput {
  readonly format: WasmFormat;
  readonly byteLength: number;
  /** The buffer's bytes in wasm memory; re-read after other numdecode calls (memory growth detaches it). Throws once released. */
  readonly bytes: Uint8Array;
  /** Same as bytes (every view's name for its contents). */
  readonly values: Uint8Array;
  readonly released: boolean;
  /** Frees the buffer. Safe to call more than once. */
  release(): void;
  close(): void;
  [Symbol.dispose](): void;
}
/**
 * byteLength bytes in the format's wasm memory: fill `bytes` once (a file read, a fetched body) and
 * pass it, or a subarray of it, to that format's decoders, which read it in place instead of copying it.
 */
export function wasmInput(format: WasmFormat, byteLength: number): WasmInput;
/** All dtype names, in a fixed order. */
export const DTYPES: readonly Dtype[];

// Internal helpers shared by the format wrappers.
export function getModule(format: WasmFormat): any;
export function binding(format: WasmFormat, name: string): (...args: any[]) => any;
export function withInputs<R>(format: WasmFormat, arrays: Uint8Array[], fn: (...ptrAndLen: number[]) => R): R;
export function textAt(mod: any, ptr: number): string;
export function bytesAt(mod: any, ptr: number, size: number): Uint8Array;
export function isDtype(dtype: unknown): dtype is Dtype;
export function typedArrayFor<D extends Dtype>(dtype: D): { new (length: number): DtypeArrayMap[D] };
export function viewAs<D extends Dtype>(dtype: D, bytes: Uint8Array): DtypeArrayMap[D];
