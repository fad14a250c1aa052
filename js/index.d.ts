export { init, buildInfo, simdSupported, DTYPES } from './wasm.js';
export type { Dtype, DtypeArrayMap, DecodedArray, InitOptions, BuildInfo } from './wasm.js';
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
  BpcellsSlice,
  BpcellsSliceView,
  BpcellsInto,
  BpcellsReadOptions,
  BpcellsDtype,
  BpcellsOpenOptions,
  BpcellsSourceObject,
  BpcellsSource,
  BpcellsStats,
} from './bpcells/index.js';
export { CODES, NumdecodeError, IoError, PcoError, AlpError, BpcellsError, ParquetError } from './errors.js';
export type { NumdecodeErrorCode, NumdecodeErrorDetails } from './errors.js';
