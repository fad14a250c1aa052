'use strict';
// CommonJS entry of numdecode (require('numdecode')). The library is ES modules; this wrapper
// loads them with import() inside init(), which is asynchronous anyway. After `await init()`
// every API works as from import:
//
//   const { init, pco } = require('numdecode');
//   await init();
//   const values = pco.decode(bytes);
//
// pco / alp / bpcells here are stand-ins that forward to the ES module once it is loaded; before
// that, calling through them throws like the ES API does before init(). load() resolves to the
// ES module namespace itself (everything, including types' runtime values).

let api = null;
let loading = null;

/** Loads the ES module (without initializing wasm) and resolves to its namespace. */
function load() {
  if (loading === null) {
    loading = import('./index.js').then(
      (mod) => (api = mod),
      (err) => {
        loading = null;
        throw err;
      },
    );
  }
  return loading;
}

function loaded(what) {
  if (api === null) throw new Error(`numdecode: await init() before ${what}`);
  return api;
}

function lookup(path) {
  let value = loaded(path.join('.'));
  for (const key of path) {
    value = value?.[key];
    if (value === undefined) throw new Error(`numdecode: this version has no ${path.join('.')}`);
  }
  return value;
}

// A callable stand-in for api[path[0]][path[1]]...: property access and calls are forwarded to
// the loaded module; before loading, properties give further stand-ins.
function deferred(path) {
  return new Proxy(function numdecodeDeferred() {}, {
    get(_target, prop) {
      if (typeof prop === 'symbol' || prop === 'then') return undefined;
      if (api !== null) {
        const owner = lookup(path);
        const value = owner[prop];
        return typeof value === 'function' ? value.bind(owner) : value;
      }
      return deferred([...path, prop]);
    },
    apply(_target, _this, args) {
      const owner = path.length > 1 ? lookup(path.slice(0, -1)) : loaded(path[0]);
      const fn = owner[path[path.length - 1]];
      if (typeof fn !== 'function') throw new TypeError(`numdecode: ${path.join('.')} is not a function`);
      return fn.apply(owner, args);
    },
  });
}

exports.load = load;
/** Loads the ES module and the WebAssembly module (see the ES init()). */
exports.init = async function init(options) {
  const mod = await load();
  return mod.init(options); // resolves to the ES namespace, as the ES init() does
};
exports.buildInfo = function buildInfo() {
  return loaded('buildInfo()').buildInfo();
};
exports.simdSupported = function simdSupported() {
  return loaded('simdSupported()').simdSupported();
};
exports.wasmInput = function wasmInput(format, byteLength) {
  return loaded('wasmInput()').wasmInput(format, byteLength);
};
exports.DTYPES = Object.freeze(['u8', 'i8', 'u16', 'i16', 'f16', 'u32', 'i32', 'f32', 'u64', 'i64', 'f64']);
exports.pco = deferred(['pco']);
exports.alp = deferred(['alp']);
exports.bpcells = deferred(['bpcells']);
exports.io = deferred(['io']);

// The error family. CODES are plain constants (branch on err.code); `err instanceof
// NumdecodeError` works once the ES module is loaded (no numdecode error exists before that).
exports.CODES = Object.freeze({
  BAD_DATA: 'ERR_BAD_DATA',
  OUTPUT_LIMIT: 'ERR_OUTPUT_LIMIT',
  NOT_INITIALIZED: 'ERR_NOT_INITIALIZED',
  NETWORK: 'ERR_NETWORK',
  UNSUPPORTED: 'ERR_UNSUPPORTED',
  ABORTED: 'ERR_ABORTED',
  CHANGED: 'ERR_CHANGED',
});
for (const name of ['NumdecodeError', 'IoError', 'PcoError', 'AlpError', 'BpcellsError', 'ParquetError']) {
  const standIn = function numdecodeErrorClass(...args) {
    return new (loaded(name)[name])(...args);
  };
  Object.defineProperty(standIn, 'name', { value: name });
  Object.defineProperty(standIn, Symbol.hasInstance, { value: (x) => api !== null && x instanceof api[name] });
  exports[name] = standIn;
}
