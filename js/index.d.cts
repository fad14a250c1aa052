// Types of the CommonJS entry (js/index.cjs): the same API as the ES module, plus load().
import type * as esm from './index.js';

export type {
  Dtype,
  DtypeArrayMap,
  DecodedArray,
  InitOptions,
  BuildInfo,
  PcoFileInfo,
  PcoChunk,
  PcoView,
  AlpPageInfo,
  BpcellsMatrix,
} from './index.js';

/** Loads the ES module and resolves to its namespace (init() does this too). */
export function load(): Promise<typeof esm>;
export const init: typeof esm.init;
export const buildInfo: typeof esm.buildInfo;
/** Works after init() or load() (it needs the ES module). */
export const simdSupported: typeof esm.simdSupported;
export const DTYPES: typeof esm.DTYPES;
/** Forward to the ES module's namespaces once init() (or load()) has loaded it. */
export const pco: typeof esm.pco;
export const alp: typeof esm.alp;
export const bpcells: typeof esm.bpcells;
