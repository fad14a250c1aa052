// The main entry is numdecode/pco's API (Pco, the error family, build facts) plus the other
// formats; init here takes { formats } (the light entry's init loads Pco only).
export * from './pco-entry.js';
import type { InitOptions } from './wasm/load.js';

/**
 * Loads the WebAssembly modules of options.formats (default: all), each once, and resolves to this
 * namespace; concurrent and later calls share a load. Rejects if a later call explicitly asks for
 * the other build than the one loaded.
 */
export function init(options?: InitOptions): Promise<typeof import('./index.js')>;
// ALP (added by the ALP branch)
export * as alp from './alp.js';
export type {
  AlpDtype,
  AlpArray,
  AlpPageBytes,
  AlpPageInfo,
  AlpVectorInfo,
  AlpVectorError,
  AlpEncodeOptions,
  AlpPage,
  AlpDecodeOptions,
  AlpView,
} from './alp.js';
// BPCells (bpcells branch): lazy matrix-directory reader.
export * as bpcells from './bpcells/index.js';
// One range-reading layer (local, http(s), Blob, buffer, user object) under every container reader.
export * as io from './io/index.js';
export type {
  BpcellsMatrix,
  AnyBpcellsMatrix,
  AnyBpcellsHdf5Matrix,
  BpcellsSlice,
  BpcellsSliceView,
  BpcellsInto,
  BpcellsReadOptions,
  BpcellsAxisOptions,
  BpcellsAxisViewOptions,
  BpcellsBlock,
  BpcellsBlocksOptions,
  BpcellsDense,
  BpcellsDenseOptions,
  BpcellsProgress,
  BpcellsDtype,
  BpcellsOpenOptions,
  BpcellsSourceObject,
  BpcellsSource,
  BpcellsStats,
} from './bpcells/index.js';
export type { NumdecodeErrorDetails } from './errors.js';
