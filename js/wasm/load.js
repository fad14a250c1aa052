// Loads numdecode's WebAssembly modules, one per format, each once and only when first needed,
// and keeps them: getModule(format) is how every other file reaches a loaded module. init() lives in
// the entries (index.js, pco-entry.js, ...): this file only loads, it never imports the API above it.
//
// dist/ holds one module per format (pco, alp, bpcells), each in two builds:
// numdecode-<format>-simd.* (wasm SIMD128 kernels) and numdecode-<format>-scalar.* (same decoders,
// scalar kernels) for engines without SIMD. The first load picks the build for all formats.

import { bytesOf } from '../bytes.js';
import { CODES, NumdecodeError } from '../errors.js';
import { textAt } from './heap.js';

/**
 * The formats that have a WebAssembly module, in the order init() loads them. 'pco-encode' is the
 * Pco encoder: it loads on the first encode, or when init({ formats }) names it, never by default.
 */
export const FORMATS = Object.freeze(['pco', 'alp', 'bpcells', 'pco-encode']);
// What init() loads when options.formats does not say: the decoders.
const DEFAULT_FORMATS = Object.freeze(['pco', 'alp', 'bpcells']);

// Literal import paths and URLs, so that bundlers can see and copy every module.
const GLUE = {
  pco: (simd) => (simd ? import('../../dist/numdecode-pco-simd.mjs') : import('../../dist/numdecode-pco-scalar.mjs')),
  alp: (simd) => (simd ? import('../../dist/numdecode-alp-simd.mjs') : import('../../dist/numdecode-alp-scalar.mjs')),
  bpcells: (simd) => (simd ? import('../../dist/numdecode-bpcells-simd.mjs') : import('../../dist/numdecode-bpcells-scalar.mjs')),
  'pco-encode': (simd) =>
    simd ? import('../../dist/numdecode-pco-encode-simd.mjs') : import('../../dist/numdecode-pco-encode-scalar.mjs'),
};
// Rollup's import-meta-assets rejects a template here.
const WASM_FILE = {
  pco: (simd) => (simd ? new URL('../../dist/numdecode-pco-simd.wasm', import.meta.url) : new URL('../../dist/numdecode-pco-scalar.wasm', import.meta.url)),
  alp: (simd) => (simd ? new URL('../../dist/numdecode-alp-simd.wasm', import.meta.url) : new URL('../../dist/numdecode-alp-scalar.wasm', import.meta.url)),
  bpcells: (simd) =>
    simd ? new URL('../../dist/numdecode-bpcells-simd.wasm', import.meta.url) : new URL('../../dist/numdecode-bpcells-scalar.wasm', import.meta.url),
  'pco-encode': (simd) =>
    simd ? new URL('../../dist/numdecode-pco-encode-simd.wasm', import.meta.url) : new URL('../../dist/numdecode-pco-encode-scalar.wasm', import.meta.url),
};
const loading = new Map(); // format -> promise of its module, shared by concurrent loads
const loaded = new Map(); // format -> its module, once ready
const loadedWith = new Map(); // format -> where its module came from (module / wasmBinary / wasmUrl), to load a fresh one alike
let onUse = null; // called by getModule (memory.js's automatic release), or null
let chosenSimd = null; // the build the first load chose, for every format

// A minimal module whose only function opens an exception-handling block (try ... end), copies
// memory (memory.copy, bulk memory) and uses SIMD instructions (i8x16.splat, i8x16.popcnt): it
// validates only where the engine supports wasm SIMD128, exception handling and bulk memory, which
// the SIMD build is compiled with (see CMakeLists.txt).
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 5, 3, 1, 0, 0, 10, 23, 1, 21, 0, 6, 64, 11,
  65, 0, 65, 0, 65, 0, 252, 10, 0, 0, 65, 0, 253, 15, 253, 98, 11,
]);

/** True when this JS engine can run the SIMD build (wasm SIMD128, exception handling, bulk memory). */
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
  let fail;
  let compiled = null; // the WebAssembly.Module instantiated, kept for fresh instances
  // Instantiates through our hook rather than the glue's own, to keep the compiled module: a fresh
  // instance from it (releaseMemory(), after a trap) needs no bytes read, checked and compiled
  // again (releaseMemory() of the three decoders in Node: 5 ms median against 10).
  const instantiateThrough = (instantiate, refuse) => {
    instantiateFailed = new Promise((_, reject) => (fail = reject));
    moduleArgs.instantiateWasm = (imports, receive) => {
      instantiate(imports).then(({ module, instance }) => {
        try {
          receive(instance, module);
          compiled = module;
        } catch (err) {
          fail(refuse(err)); // it instantiated but lacks numdecode's exports
        }
      }, (err) => fail(refuse(err)));
      return {};
    };
  };
  if (options.module !== undefined) {
    // A precompiled module (e.g. from WebAssembly.compileStreaming, or shared with a worker).
    const precompiled = options.module;
    if (!(precompiled instanceof WebAssembly.Module)) throw new TypeError('numdecode init: options.module must be a WebAssembly.Module');
    instantiateThrough(
      async (imports) => ({ module: precompiled, instance: await WebAssembly.instantiate(precompiled, imports) }),
      (err) =>
        // options.fresh: our own compiled module again (freshInstance), which a user did not give
        options.fresh
          ? new NumdecodeError(`numdecode: a fresh instance of the ${format} module failed: ${err?.message ?? err}`, { cause: err })
          : new NumdecodeError(`numdecode init: options.module is not this build of numdecode's ${format} module: ${err?.message ?? err}`, { cause: err }),
    );
  } else {
    if (options.wasmUrl !== undefined) {
      moduleArgs.wasmBinary = await fetchWasm(options.wasmUrl);
    } else if (options.wasmBinary !== undefined) {
      // A Uint8Array: the glue copies it with new Uint8Array(bin), which would misread other views.
      moduleArgs.wasmBinary = bytesOf(options.wasmBinary);
      if (moduleArgs.wasmBinary === null) throw new TypeError('numdecode init: options.wasmBinary must be an ArrayBuffer or Uint8Array');
    } else if (isNode) {
      // The emscripten glue is built for web and workers; in Node it would try to fetch() a
      // file: URL, so hand it the bytes instead.
      const { readFile } = await import(/* webpackIgnore: true */ 'node:fs/promises');
      moduleArgs.wasmBinary = await readFile(WASM_FILE[format](simd));
    }
    // (A browser's default load stays the glue's own streaming one: its fresh instances compile again.)
    const bytes = moduleArgs.wasmBinary;
    if (bytes !== undefined) instantiateThrough((imports) => WebAssembly.instantiate(bytes, imports), (err) => err);
  }
  const given = !options.fresh && ['module', 'wasmBinary', 'wasmUrl'].some((k) => options[k] !== undefined);
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
    // A WebAssembly error from our instantiation says what it is (CompileError, LinkError, ...).
    const why = err instanceof Error && err.name !== 'Error' && !err.message.startsWith('Aborted(') ? `${err.name}: ${err.message}` : (err?.message ?? String(err));
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
  if (compiled) compiledOf.set(mod, compiled);
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
const compiledOf = new WeakMap(); // module -> the WebAssembly.Module it is an instance of, where known

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
 * Loads the WebAssembly modules of options.formats (default: every decoder) and resolves when
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
  const formats = options.formats ?? DEFAULT_FORMATS;
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
    loadedWith.set(format, { module: options.module, wasmBinary: options.wasmBinary, wasmUrl: options.wasmUrl });
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

/**
 * A new instance of a loaded format's module, from the same bytes as its first load, with the
 * memory of a fresh load (wasm memory never shrinks: a new instance is the only way back). It
 * does not replace the loaded one: see replaceModule().
 */
export function freshInstance(format) {
  if (!loaded.has(format)) throw new Error(`numdecode: ${format} is not loaded`);
  const compiled = compiledOf.get(loaded.get(format));
  return loadModule(format, chosenSimd, compiled ? { module: compiled, fresh: true } : loadedWith.get(format));
}

/** Makes `mod` (from freshInstance) the format's module for every later call. */
export function replaceModule(format, mod) {
  loaded.set(format, mod);
  loading.set(format, Promise.resolve(mod));
}

/** The loaded modules, format -> module. */
export function loadedModules() {
  return new Map(loaded);
}

/** fn(format, mod) runs on every getModule() (null: none); memory.js's automatic release. */
export function setOnUse(fn) {
  onUse = fn;
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
  if (onUse !== null) onUse(format, mod);
  return mod;
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
