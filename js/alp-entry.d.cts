// Types of the CommonJS entry of numdecode/alp (js/alp-entry.cjs).
import type * as esm from './alp-entry.js' with { 'resolution-mode': 'import' };

export type {
  Dtype,
  DtypeArrayMap,
  DecodedArray,
  InitOptions,
  BuildInfo,
  WasmInput,
  AlpDtype,
  AlpArray,
  AlpPageInfo,
  AlpPage,
  AlpView,
  NumdecodeErrorCode,
} from './alp-entry.js' with { 'resolution-mode': 'import' };

export const init: typeof esm.init;
export const buildInfo: typeof esm.buildInfo;
/** Works after init() (it needs the ES module). */
export const simdSupported: typeof esm.simdSupported;
export const DTYPES: typeof esm.DTYPES;
/** Works after init() (it needs the ES module). */
export const wasmInput: typeof esm.wasmInput;
/** Forwards to the ES module's alp namespace once init() has loaded it. */
export const alp: typeof esm.alp;
/** The error family; instanceof works once init() has run. */
export const CODES: typeof esm.CODES;
export const NumdecodeError: typeof esm.NumdecodeError;
export const IoError: typeof esm.IoError;
export const PcoError: typeof esm.PcoError;
export const AlpError: typeof esm.AlpError;
export const BpcellsError: typeof esm.BpcellsError;
export const ParquetError: typeof esm.ParquetError;
