// Types of the CommonJS entry of numdecode/bpcells (js/bpcells-entry.cjs).
import type * as esm from './bpcells-entry.js' with { 'resolution-mode': 'import' };

export type {
  Dtype,
  InitOptions,
  BuildInfo,
  BpcellsMatrix,
  BpcellsSlice,
  BpcellsSliceView,
  BpcellsReadOptions,
  BpcellsOpenOptions,
  BpcellsHdf5Matrix,
  NumdecodeErrorCode,
} from './bpcells-entry.js' with { 'resolution-mode': 'import' };

export const init: typeof esm.init;
export const buildInfo: typeof esm.buildInfo;
/** Works after init() (it needs the ES module). */
export const simdSupported: typeof esm.simdSupported;
export const DTYPES: typeof esm.DTYPES;
/** Forwards to the ES module's bpcells namespace once init() has loaded it. */
export const bpcells: typeof esm.bpcells;
/** Forwards to the ES module's io namespace once init() has loaded it. */
export const io: typeof esm.io;
/** The error family; instanceof works once init() has run. */
export const CODES: typeof esm.CODES;
export const NumdecodeError: typeof esm.NumdecodeError;
export const IoError: typeof esm.IoError;
export const PcoError: typeof esm.PcoError;
export const AlpError: typeof esm.AlpError;
export const BpcellsError: typeof esm.BpcellsError;
export const ParquetError: typeof esm.ParquetError;
