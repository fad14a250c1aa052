// Types of the CommonJS entry of numdecode/pco (js/pco-entry.cjs).
import type * as esm from './pco-entry.js' with { 'resolution-mode': 'import' };

export type {
  Dtype,
  DtypeArrayMap,
  DecodedArray,
  InitOptions,
  BuildInfo,
  WasmInput,
  PcoFileInfo,
  PcoChunk,
  PcoView,
  NumdecodeErrorCode,
} from './pco-entry.js' with { 'resolution-mode': 'import' };

export const init: typeof esm.init;
export const buildInfo: typeof esm.buildInfo;
/** Works after init() (it needs the ES module). */
export const simdSupported: typeof esm.simdSupported;
export const DTYPES: typeof esm.DTYPES;
/** Works after init() (it needs the ES module). */
export const wasmInput: typeof esm.wasmInput;
/** Forwards to the ES module's pco namespace once init() has loaded it. */
export const pco: typeof esm.pco;
/** The error family; instanceof works once init() has run. */
export const CODES: typeof esm.CODES;
export const NumdecodeError: typeof esm.NumdecodeError;
export const IoError: typeof esm.IoError;
export const PcoError: typeof esm.PcoError;
export const AlpError: typeof esm.AlpError;
export const BpcellsError: typeof esm.BpcellsError;
export const ParquetError: typeof esm.ParquetError;
