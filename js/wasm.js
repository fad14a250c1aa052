// DEPRECATED, for the move only: the wasm layer now lives in js/wasm/ (load.js, inputs.js, views.js,
// heap.js, call.js) and js/dtypes.js. This file re-exports them until every importer has switched;
// then it goes. New code imports from js/wasm/*.js.
export { FORMATS, buildInfo, ensureFormat, formatLoaded, getModule, loadFormats, loadOnly, simdSupported } from './wasm/load.js';
export { wasmInput, withInputs } from './wasm/inputs.js';
export { wasmView } from './wasm/views.js';
export { bytesAt, textAt } from './wasm/heap.js';
export { asFormatError, binding, wasmCaller } from './wasm/call.js';
export { DTYPES, isDtype, typedArrayFor, viewAs } from './dtypes.js';
export { init } from './index.js';

import { wasmCaller } from './wasm/call.js';

/** withInputs(format, arrays, fn), with the module's errors turned into ErrorClass: use wasmCaller. */
export function callWithInputs(format, ErrorClass, arrays, fn) {
  return wasmCaller(format, ErrorClass)(arrays, fn);
}
