// numdecode/pco: the Pco decoder alone (no other format's wasm or JS is loaded).
import type { InitOptions } from './wasm/load.js';

export { buildInfo, simdSupported } from './wasm/load.js';
export { wasmInput } from './wasm/inputs.js';
export { DTYPES, toFloat32 } from './dtypes.js';
export { memoryUsage, releaseMemory, autoReleaseMemory } from './wasm/memory.js';
export type { ModuleMemory, ReleasedMemory } from './wasm/memory.js';
export type { Dtype, DtypeArrayMap, DecodedArray } from './dtypes.js';
export type { InitOptions, BuildInfo } from './wasm/load.js';
export type { WasmInput } from './wasm/inputs.js';
export * as pco from './pco.js';
export type {
  PcoFileInfo,
  PcoChunkInfo,
  PcoChunk,
  PcoMode,
  PcoDelta,
  PcoLatentVar,
  PcoBin,
  PcoFormatVersion,
  PcoWrappedReader,
  PcoWrappedChunk,
  PcoView,
  PcoViewStats,
  PcoBytes,
  PcoDecodeOptions,
  PcoTypedDecodeOptions,
} from './pco.js';
export { CODES, NumdecodeError, IoError, PcoError, AlpError, BpcellsError, ParquetError, ZarrError, Hdf5Error } from './errors.js';
export type { NumdecodeErrorCode } from './errors.js';

/** Loads the Pco WebAssembly module only; resolves to this entry's namespace. */
export function init(options?: Omit<InitOptions, 'formats'>): Promise<typeof import('./pco-entry.js')>;
