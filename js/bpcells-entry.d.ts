// numdecode/bpcells: the BPCells matrix reader alone (no other format's wasm or JS is loaded).
import type { InitOptions } from './wasm/load.js';

export { buildInfo, simdSupported } from './wasm/load.js';
export { DTYPES } from './dtypes.js';
export { memoryUsage, releaseMemory, autoReleaseMemory } from './wasm/memory.js';
export type { ModuleMemory, ReleasedMemory } from './wasm/memory.js';
export type { Dtype, DtypeArrayMap, DecodedArray } from './dtypes.js';
export type { InitOptions, BuildInfo } from './wasm/load.js';
export * as bpcells from './bpcells/index.js';
export * as io from './io/index.js';
export type {
  BpcellsMatrix,
  AnyBpcellsMatrix,
  AnyBpcellsHdf5Matrix,
  BpcellsMatrixInfo,
  BpcellsSlice,
  BpcellsSliceView,
  BpcellsViewStats,
  BpcellsInto,
  BpcellsReadOptions,
  BpcellsCallOptions,
  BpcellsAxisOptions,
  BpcellsAxisViewOptions,
  BpcellsBlock,
  BpcellsBlocksOptions,
  BpcellsDense,
  BpcellsDenseOptions,
  BpcellsProgress,
  BpcellsDtype,
  BpcellsValueArrayMap,
  BpcellsOpenOptions,
  BpcellsSourceObject,
  BpcellsSource,
  BpcellsStats,
  BpcellsFileObject,
  BpcellsHdf5Input,
  BpcellsHdf5Options,
  BpcellsHdf5Matrix,
  BpcellsGroupInfo,
} from './bpcells/index.js';
export { CODES, NumdecodeError, IoError, PcoError, AlpError, BpcellsError, ParquetError, ZarrError, Hdf5Error } from './errors.js';
export type { NumdecodeErrorCode, NumdecodeErrorDetails } from './errors.js';

/** Loads the BPCells WebAssembly module ahead of the first open(); resolves to this entry's namespace. */
export function init(options?: Omit<InitOptions, 'formats'>): Promise<typeof import('./bpcells-entry.js')>;
