// Loads numdecode's WebAssembly modules, one per format, each once and only when first needed,
// and gives the format wrappers (pco.js, ...) the few helpers they share: heap copies in and out,
// and typed-array views by dtype.
//
// dist/ holds one module per format (pco, alp, bpcells), each in two builds:
// numdecode-<format>-simd.* (wasm SIMD128 kernels) and numdecode-<format>-scalar.* (same decoders,
// scalar kernels) for engines without SIMD. The first load picks the build for all formats.

import { CODES, NumdecodeError } from './errors.js';

/** The formats that have a WebAssembly module, in the order init() loads them. */
export const FORMATS = Object.freeze(['pco', 'alp', 'bpcells']);

// Literal import paths and URLs, so that bundlers can see and copy every module.
const GLUE = {
  pco: (simd) => (simd ? import('../dist/numdecode-pco-simd.mjs') : import('../dist/numdecode-pco-scalar.mjs')),
  alp: (simd) => (simd ? import('../dist/numdecode-alp-simd.mjs') : import('../dist/numdecode-alp-scalar.mjs')),
  bpcells: (simd) => (simd ? import('../dist/numdecode-bpcells-simd.mjs') : import('../dist/numdecode-bpcells-scalar.mjs')),
};
// Rollup's import-meta-assets rejects a template here.
const WASM_FILE = {
  pco: (simd) => (simd ? new URL('../dist/numdecode-pco-simd.wasm', import.meta.url) : new URL('../dist/numdecode-pco-scalar.wasm', import.meta.url)),
  alp: (simd) => (simd ? new URL('../dist/numdecode-alp-simd.wasm', import.meta.url) : new URL('../dist/numdecode-alp-scalar.wasm', import.meta.url)),
  bpcells: (simd) =>
    simd ? new URL('../dist/numdecode-bpcells-simd.wasm', import.meta.url) : new URL('../dist/numdecode-bpcells-scalar.wasm', import.meta.url),
};
const loading = new Map(); // format -> promise of its module, shared by concurrent loads
const loaded = new Map(); // format -> its module, once ready
let chosenSimd = null; // the build the first load chose, for every format

// A minimal module whose only function opens an exception-handling block (try ... end) and uses
// SIMD instructions (i8x16.splat, i8x16.popcnt): it validates only where the engine supports both
// wasm SIMD128 and wasm exception handling, which the SIMD build throws with (see CMakeLists.txt).
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 13, 1, 11, 0, 6, 64, 11, 65, 0, 253,
  15, 253, 98, 11,
]);

/** True when this JS engine can run the SIMD build (wasm SIMD128 and exception handling). */
export function simdSupported() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

const isNode =
  typeof process === 'object' && typeof process.versions === 'object' && typeof process.versions.node === 'string';

function chooseSimd(simdOption) {
  if (simdOption === undefined || simdOption === 'auto') return simdSupported();
  if (simdOption === true || simdOption === false) return simdOption;
  throw new TypeError(`numdecode init: options.simd must be true, false or 'auto', got ${String(simdOption)}`);
}

const kind = (isSimd) => (isSimd ? 'SIMD' : 'scalar');

async function loadModule(format, simd, options) {
  if (simd && !simdSupported()) {
    throw new NumdecodeError('numdecode init: options.simd is true but this engine does not support WebAssembly SIMD and exception handling', {
      code: CODES.UNSUPPORTED,
    });
  }
  const factory = (await GLUE[format](simd)).default;
  const moduleArgs = {};
  // The glue waits for instantiateWasm's receive() forever: a failed instantiation must end the load.
  let instantiateFailed = new Promise(() => {});
  if (options.module !== undefined) {
    // A precompiled module (e.g. from WebAssembly.compileStreaming, or shared with a worker).
    const compiled = options.module;
    if (!(compiled instanceof WebAssembly.Module)) throw new TypeError('numdecode init: options.module must be a WebAssembly.Module');
    let fail;
    instantiateFailed = new Promise((_, reject) => (fail = reject));
    moduleArgs.instantiateWasm = (imports, receive) => {
      const refuse = (err) =>
        fail(new NumdecodeError(`numdecode init: options.module is not this build of numdecode's ${format} module: ${err?.message ?? err}`, { cause: err }));
      WebAssembly.instantiate(compiled, imports).then((instance) => {
        try {
          receive(instance, compiled);
        } catch (err) {
          refuse(err); // it instantiated but lacks numdecode's exports
        }
      }, refuse);
      return {};
    };
  } else if (options.wasmUrl !== undefined) {
    moduleArgs.wasmBinary = await fetchWasm(options.wasmUrl);
  } else if (options.wasmBinary !== undefined) {
    const bin = options.wasmBinary;
    if (!(bin instanceof ArrayBuffer || ArrayBuffer.isView(bin))) {
      throw new TypeError('numdecode init: options.wasmBinary must be an ArrayBuffer or Uint8Array');
    }
    // The glue copies it with new Uint8Array(bin), which would misread other views.
    moduleArgs.wasmBinary = ArrayBuffer.isView(bin) ? new Uint8Array(bin.buffer, bin.byteOffset, bin.byteLength) : bin;
  } else if (isNode) {
    // The emscripten glue is built for web and workers; in Node it would try to fetch() a
    // file: URL, so hand it the bytes instead.
    const { readFile } = await import(/* webpackIgnore: true */ 'node:fs/promises');
    moduleArgs.wasmBinary = await readFile(WASM_FILE[format](simd));
  }
  const given = ['module', 'wasmBinary', 'wasmUrl'].some((k) => options[k] !== undefined);
  // Wrong bytes fail inside the glue, which would also print the whole failure to the console:
  // the error thrown below carries it.
  if (given) moduleArgs.printErr = () => {};
  const notOurs = `numdecode init: the wasm given for ${format} is not numdecode's ${format} module`;
  let mod;
  try {
    mod = await Promise.race([factory(moduleArgs), instantiateFailed]);
  } catch (err) {
    if (err instanceof NumdecodeError) throw err;
    // The glue aborts with a RuntimeError when the imports do not match (another format's module,
    // or the other build of this one: the two builds import different functions).
    if (moduleArgs.wasmBinary !== undefined && given && (await isOtherBuild(format, simd, moduleArgs.wasmBinary))) {
      throw otherBuildError(format, simd);
    }
    const why = err?.message ?? String(err);
    throw new NumdecodeError(given ? `${notOurs} (${why})` : `numdecode init: the ${format} module failed to load: ${why}`, { cause: err });
  }
  // Another format's module (or another program) given as options.module, wasmBinary or wasmUrl
  // links against this glue but calls the wrong functions: its build facts do not read back.
  let info = null;
  try {
    info = readBuildInfo(mod);
  } catch {
    // reported below
  }
  if (info?.format !== format) {
    throw new NumdecodeError(`${notOurs} (another format's, or another program)`);
  }
  if (info.simd !== simd) throw otherBuildError(format, simd);
  buildInfos.set(mod, info);
  return mod;
}

const otherBuildError = (format, simd) =>
  new NumdecodeError(`numdecode init: asked for the ${kind(simd)} build of ${format} but got the ${kind(!simd)} one (check options.wasmBinary)`);

// Whether bytes that failed to load through this build's glue are the other build of the format
// (only asked after a failure, to say so instead of "not numdecode's module").
async function isOtherBuild(format, simd, wasmBinary) {
  if (!simd && !simdSupported()) return false;
  try {
    const info = readBuildInfo(await (await GLUE[format](!simd)).default({ wasmBinary, printErr: () => {} }));
    return info.format === format && info.simd === !simd;
  } catch {
    return false;
  }
}

const buildInfos = new WeakMap(); // module -> {simd, version}

/** The NUL-terminated UTF-8 text at ptr in a module's memory (C strings its exports return). */
export function textAt(mod, ptr) {
  const heap = mod.HEAPU8;
  return new TextDecoder().decode(heap.subarray(ptr, heap.indexOf(0, ptr)));
}

/** A fresh copy of size bytes at ptr in a module's memory (new + set: V8's slice() of wasm memory is much slower). */
export function bytesAt(mod, ptr, size) {
  const out = new Uint8Array(size);
  out.set(mod.HEAPU8.subarray(ptr, ptr + size));
  return out;
}

// {format, simd, version}, read through the glue from the module's build facts.
function readBuildInfo(mod) {
  const text = (ptr) => textAt(mod, ptr);
  return { format: text(mod._numdecode_build_format()), simd: mod._numdecode_build_simd() === 1, version: text(mod._numdecode_build_version()) };
}

// The bytes at options.wasmUrl: a file: URL is read from disk in Node, anything else fetched.
async function fetchWasm(wasmUrl) {
  const url = wasmUrl instanceof URL ? wasmUrl : new URL(String(wasmUrl), globalThis.location?.href);
  if (isNode && url.protocol === 'file:') {
    const { readFile } = await import(/* webpackIgnore: true */ 'node:fs/promises');
    return readFile(url);
  }
  let response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw new NumdecodeError(`numdecode init: cannot fetch ${url.href}: ${err?.message ?? err}`, { code: CODES.NETWORK, file: url.href, cause: err });
  }
  if (!response.ok) {
    throw new NumdecodeError(`numdecode init: HTTP ${response.status} for ${url.href}`, { code: CODES.NETWORK, file: url.href, status: response.status });
  }
  return new Uint8Array(await response.arrayBuffer());
}

const INIT_OPTIONS = new Set(['simd', 'formats', 'wasmBinary', 'module', 'wasmUrl']);

function checkFormat(what, format) {
  if (!FORMATS.includes(format)) throw new TypeError(`${what}: unknown format ${JSON.stringify(format)} (one of ${FORMATS.join(', ')})`);
}

/**
 * Loads the WebAssembly modules of options.formats (default: every format) and resolves when
 * they are ready. Each format's module loads once: concurrent and later calls share its load, and
 * a failed load can be retried. The first load picks the SIMD or scalar build for all formats; a
 * later call that explicitly asks for the other build (simd: true vs false) throws.
 * wasmBinary (the bytes), module (a compiled WebAssembly.Module) or wasmUrl (where to fetch the
 * .wasm) replace one module's default location next to its glue, so at most one of them may be
 * given, and only with a single format: `{ formats: ['pco'], module }`.
 * @param {{simd?: boolean|'auto', formats?: string[], wasmBinary?: ArrayBuffer|Uint8Array, module?: WebAssembly.Module, wasmUrl?: string|URL}} [options]
 */
export async function loadFormats(options = {}) {
  options = options ?? {};
  if (typeof options !== 'object') throw new TypeError(`numdecode init: options must be an object, got ${typeof options}`);
  for (const key of Object.keys(options)) {
    if (!INIT_OPTIONS.has(key)) throw new TypeError(`numdecode init: unknown option ${JSON.stringify(key)} (one of ${[...INIT_OPTIONS].join(', ')})`);
  }
  const formats = options.formats ?? FORMATS;
  if (!Array.isArray(formats)) throw new TypeError(`numdecode init: options.formats must be an array of ${FORMATS.join(', ')}`);
  for (const f of formats) checkFormat('numdecode init: options.formats', f);
  const given = ['wasmBinary', 'module', 'wasmUrl'].filter((k) => options[k] !== undefined);
  if (given.length > 1) throw new TypeError(`numdecode init: pass one of wasmBinary, module, wasmUrl (got ${given.join(', ')})`);
  if (given.length === 1 && formats.length !== 1) {
    throw new TypeError(`numdecode init: options.${given[0]} is one format's module: pass it with a single format, e.g. { formats: ['pco'], ${given[0]} }`);
  }
  const simd = chooseSimd(options.simd);
  if (formats.length === 0) return;
  if (chosenSimd === null) chosenSimd = simd;
  else if (typeof options.simd === 'boolean' && options.simd !== chosenSimd) {
    throw new TypeError(`numdecode init: the ${kind(chosenSimd)} build is already loaded; cannot switch to simd: ${options.simd}`);
  }
  await Promise.all(formats.map((format) => loadFormat(format, chosenSimd, options)));
}

function loadFormat(format, simd, options) {
  let promise = loading.get(format);
  if (promise === undefined) {
    promise = loadModule(format, simd, options).then(
      (mod) => {
        loaded.set(format, mod);
        return mod;
      },
      (err) => {
        loading.delete(format);
        if (loading.size === 0) chosenSimd = null; // nothing loaded: the next call may choose again
        throw err;
      },
    );
    loading.set(format, promise);
  }
  return promise;
}

/**
 * Loads the WebAssembly modules (see loadFormats for the options; default: every format) and
 * resolves to the package's API (the namespace of index.js).
 */
export async function init(options = {}) {
  await loadFormats(options);
  // The whole API, so that `const { pco } = await init()` works (loaded lazily: index.js imports this file).
  return import('./index.js');
}

/**
 * The init() of a light entry (numdecode/pco, numdecode/alp, numdecode/bpcells): loads that one
 * format's module; options as init()'s without `formats`. `label` names the format in the error.
 */
export async function loadOnly(format, label, options = {}) {
  if (options?.formats !== undefined) {
    throw new TypeError(`numdecode/${format} init: this entry loads ${label} only; use init() from 'numdecode' to choose formats`);
  }
  await loadFormats({ ...options, formats: [format] });
}

/**
 * Resolves to the format's module, loading it first if needed (the async entry points call this,
 * so they work without init()). initOptions: as for init(), for the first load.
 */
export async function ensureFormat(format, initOptions) {
  checkFormat('numdecode', format);
  return loaded.get(format) ?? (await loadFormats({ ...initOptions, formats: [format] }), loaded.get(format));
}

/** True once the format's module is loaded. */
export function formatLoaded(format) {
  return loaded.has(format);
}

/** The format's loaded module; throws ERR_NOT_INITIALIZED naming the format if it is not loaded. */
export function getModule(format) {
  const mod = loaded.get(format);
  if (mod === undefined) {
    checkFormat('numdecode getModule', format);
    throw new NumdecodeError(`numdecode: await init() before decoding ${format} (init({ formats: ['${format}'] }) loads only its module)`, {
      code: CODES.NOT_INITIALIZED,
    });
  }
  return mod;
}

/** A function the format's module exports; throws a clear Error if this build lacks it. */
export function binding(format, name) {
  const fn = getModule(format)[name];
  if (typeof fn !== 'function') {
    throw new NumdecodeError(`numdecode: the loaded ${format} module has no ${name}(); dist/ is out of date (run npm run build)`, {
      code: CODES.UNSUPPORTED,
    });
  }
  return fn;
}

/** {simd, version} of the loaded modules (all loads share one build). */
export function buildInfo() {
  const first = loaded.values().next().value;
  if (first === undefined) {
    throw new NumdecodeError('numdecode: await init() before buildInfo()', { code: CODES.NOT_INITIALIZED });
  }
  const { simd, version } = buildInfos.get(first);
  return { simd, version };
}

/**
 * Copies each Uint8Array into the format's wasm heap (unless it lies in a wasmInput() buffer: then it
 * is passed where it is), calls fn(ptr0, len0, ptr1, len1, ...) and frees the copies afterwards,
 * also when fn throws.
 */
export function withInputs(format, arrays, fn) {
  const mod = getModule(format);
  const args = [];
  let inPlace = 0; // bit i: input i is used where it lies (not a copy to free)
  try {
    for (const bytes of arrays) {
      if (bytes.buffer === mod.HEAPU8.buffer && insideWasmInput(mod, bytes)) {
        inPlace |= 1 << (args.length / 2);
        args.push(bytes.byteOffset, bytes.length);
        continue;
      }
      // malloc(0) may return 0; ask for one byte so every input has a real address.
      const ptr = mod._malloc(Math.max(bytes.length, 1));
      if (ptr === 0) {
        throw new NumdecodeError(`numdecode: out of wasm memory copying ${bytes.length} input bytes`, { code: CODES.OUTPUT_LIMIT });
      }
      args.push(ptr, bytes.length);
      // HEAPU8 is re-read after every malloc: growing memory replaces it.
      mod.HEAPU8.set(bytes, ptr);
    }
    return fn(...args);
  } finally {
    for (let i = 0; i < args.length; i += 2) if (!(inPlace & (1 << (i / 2)))) mod._free(args[i]);
  }
}

// Per module, the live wasmInput() allocations: start -> end. Bytes inside one are used where they
// lie; any other view of wasm memory (which may be freed memory a decoder's output could reuse) is copied.
const liveInputs = new WeakMap();

function insideWasmInput(mod, bytes) {
  const live = liveInputs.get(mod);
  if (live === undefined) return false;
  const start = bytes.byteOffset;
  const end = start + bytes.length;
  // Usually the whole buffer: found by its start without a walk over every live buffer.
  const whole = live.get(start);
  if (whole !== undefined && end <= whole) return true;
  for (const [ptr, stop] of live) if (start >= ptr && end <= stop) return true;
  return false;
}

/**
 * `byteLength` bytes in the format's wasm memory for compressed input: fill `input.bytes` once
 * (a file read, a fetched body) and pass it (or a subarray) to that format's decoders, which then
 * read it where it lies instead of copying it in. Rules as for decodeView: re-read `input.bytes`
 * after other numdecode calls (memory growth detaches it); release() frees it.
 */
export function wasmInput(format, byteLength) {
  if (!Number.isSafeInteger(byteLength) || byteLength < 0) {
    throw new RangeError(`numdecode.wasmInput: byteLength must be a non-negative integer, got ${byteLength}`);
  }
  const mod = getModule(format);
  const ptr = mod._malloc(Math.max(byteLength, 1));
  if (ptr === 0) {
    throw new NumdecodeError(`numdecode.wasmInput: out of wasm memory for ${byteLength} input bytes`, { code: CODES.OUTPUT_LIMIT });
  }
  let live = liveInputs.get(mod);
  if (live === undefined) liveInputs.set(mod, (live = new Map()));
  live.set(ptr, ptr + byteLength);
  const free = () => {
    live.delete(ptr);
    mod._free(ptr);
  };
  return new WasmInput(mod, 'numdecode.wasmInput', Uint8Array, ptr, byteLength, free, { format, byteLength });
}

/**
 * The error to throw for `err` caught around a call into the module: errors the decoders raise
 * (plain Errors carrying `code`, set by src/bindings/binding_util.hpp) become ErrorClass with
 * that code and the location `details`; our own errors and argument errors pass unchanged.
 */
export function asFormatError(err, ErrorClass, details = {}) {
  if (err instanceof NumdecodeError || err instanceof TypeError || err instanceof RangeError) return err;
  const message = err instanceof Error ? err.message : String(err);
  // No `cause`: the module's Error holds nothing beyond the message and code kept here.
  return new ErrorClass(message, { ...details, code: err?.code });
}

/** withInputs(format, arrays, fn), with the module's errors turned into ErrorClass (see asFormatError). */
export function callWithInputs(format, ErrorClass, arrays, fn) {
  try {
    return withInputs(format, arrays, fn);
  } catch (err) {
    throw asFormatError(err, ErrorClass);
  }
}

/**
 * A zero-copy view of `length` values of class Type at ptr in the format's wasm memory, as every decodeView
 * returns it: `values` is re-created after memory growth (which detaches old typed arrays) and
 * throws once released; release() (also close() and Symbol.dispose) calls free() once.
 * `fields` are copied onto the view (dtype, byteLength, ...).
 */
export function wasmView(format, what, Type, ptr, length, free, fields) {
  return new WasmView(getModule(format), what, Type, ptr, length, free, fields);
}

// A class, not an object literal with getters: V8 defines a literal's accessors through slow
// runtime calls (about 4 µs a view, more than decoding a small file). release / close /
// Symbol.dispose are own functions, so they also work detached (`const { release } = view`).
class WasmView {
  #mod;
  #what;
  #Type;
  #ptr;
  #length;
  #current = null;
  #released = false;

  constructor(mod, what, Type, ptr, length, free, fields) {
    if (fields) Object.assign(this, fields);
    this.#mod = mod;
    this.#what = what;
    this.#Type = Type;
    this.#ptr = ptr;
    this.#length = length;
    /** Frees the values' memory. Safe to call more than once. */
    this.release = () => {
      if (this.#released) return;
      this.#released = true;
      this.#current = null;
      free();
    };
    this.close = this.release;
    if (typeof Symbol.dispose === 'symbol') this[Symbol.dispose] = this.release;
  }

  get values() {
    if (this.#released) throw new Error(`${this.#what}: the view was released; its memory may hold other data now`);
    const buffer = this.#mod.HEAPU8.buffer;
    if (this.#current === null || this.#current.buffer !== buffer) this.#current = new this.#Type(buffer, this.#ptr, this.#length);
    return this.#current;
  }

  get released() {
    return this.#released;
  }
}

// An input buffer: a view whose values are its bytes.
class WasmInput extends WasmView {
  /** The buffer's bytes (a Uint8Array in wasm memory); re-read after other numdecode calls. */
  get bytes() {
    return this.values;
  }
}

const TYPED_ARRAYS = {
  u8: Uint8Array,
  i8: Int8Array,
  u16: Uint16Array,
  i16: Int16Array,
  f16: Uint16Array, // the raw IEEE half-precision bits
  u32: Uint32Array,
  i32: Int32Array,
  f32: Float32Array,
  u64: BigUint64Array,
  i64: BigInt64Array,
  f64: Float64Array,
};

/** The dtype names every decoder uses. */
export const DTYPES = Object.freeze(Object.keys(TYPED_ARRAYS));

export function isDtype(dtype) {
  return typeof dtype === 'string' && Object.hasOwn(TYPED_ARRAYS, dtype);
}

/** The typed-array class for a dtype ('f16' gives Uint16Array: the bits). */
export function typedArrayFor(dtype) {
  if (!isDtype(dtype)) throw new TypeError(`numdecode: unknown dtype ${JSON.stringify(dtype)} (one of ${DTYPES.join(', ')})`);
  return TYPED_ARRAYS[dtype];
}

/** Views a Uint8Array of little-endian values as the typed array for dtype (copies only if misaligned). */
export function viewAs(dtype, u8) {
  const Type = typedArrayFor(dtype);
  const size = Type.BYTES_PER_ELEMENT;
  if (u8.byteLength % size !== 0) {
    throw new NumdecodeError(`numdecode: ${u8.byteLength} bytes is not a whole number of ${dtype} values`);
  }
  if (u8.byteOffset % size !== 0) u8 = u8.slice();
  return new Type(u8.buffer, u8.byteOffset, u8.byteLength / size);
}
