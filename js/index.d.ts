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
} from './pco.js';
