// Types of the CommonJS entry (js/index.cjs): the same API as the ES module, plus load().
// resolution-mode: under moduleResolution node16 a CommonJS file may only type-import ESM this way.
import type * as esm from './index.js' with { 'resolution-mode': 'import' };

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
  AlpPageInfo,
  BpcellsMatrix,
} from './index.js' with { 'resolution-mode': 'import' };

/** Loads the ES module and resolves to its namespace (init() does this too). */
export function load(): Promise<typeof esm>;
export const init: typeof esm.init;
export const buildInfo: typeof esm.buildInfo;
/** Works after init() or load() (it needs the ES module). */
export const simdSupported: typeof esm.simdSupported;
export const DTYPES: typeof esm.DTYPES;
/** Works after init() (it needs the ES module). */
export const wasmInput: typeof esm.wasmInput;
/** Forward to the ES module's namespaces once init() (or load()) has loaded it. */
export const pco: typeof esm.pco;
export const alp: typeof esm.alp;
export const bpcells: typeof esm.bpcells;
export const io: typeof esm.io;
/** The error family (see the ES module); instanceof works once init() or load() has run. */
export const CODES: typeof esm.CODES;
export const NumdecodeError: typeof esm.NumdecodeError;
export const IoError: typeof esm.IoError;
export const PcoError: typeof esm.PcoError;
export const AlpError: typeof esm.AlpError;
export const BpcellsError: typeof esm.BpcellsError;
export const ParquetError: typeof esm.ParquetError;
export type { NumdecodeErrorCode } from './index.js' with { 'resolution-mode': 'import' };
