// Declarations of load.js: loading the formats' WebAssembly modules.
/** The formats that have a WebAssembly module of their own ('pco-encode': the Pco encoder). */
export type WasmFormat = 'pco' | 'alp' | 'bpcells' | 'pco-encode';

export interface InitOptions {
  /**
   * Which build to load: true = SIMD128, false = scalar, 'auto' (default) = SIMD when the
   * engine validates a SIMD module, else scalar. The first load chooses for every format.
   */
  simd?: boolean | 'auto';
  /**
   * Which formats' modules to load (default: the decoders, not 'pco-encode'). The others load when first needed by an async
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
/** True when this engine can run the SIMD build (wasm SIMD128, exception handling, bulk memory). */
export function simdSupported(): boolean;
/** The format's loaded module (throws ERR_NOT_INITIALIZED before it loads); for the format wrappers. */
export function getModule(format: WasmFormat): any;
