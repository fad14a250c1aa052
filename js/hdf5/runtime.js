// h5wasm, the HDF5 library in WebAssembly, loaded on first use (a dynamic import: directory, Pco
// and ALP users never download it) and once per process; after a wasm trap (or a call stopped by
// the time limit) the runtime is marked broken and the next getRuntime() loads a fresh instance,
// to which open files move (handle.js). HDF5's own error stack, which it prints to stderr, is kept
// for the error messages (handle.js).
//
// h5wasm is an optional peer dependency of numdecode (docs/bpcells.md): without it, HDF5 files
// are an Hdf5Error saying to install it.
import { CODES, Hdf5Error } from '../errors.js';
import { loadWatchdog } from './time-limit.js';

let loading = null;
let generation = 0;

class Runtime {
  constructor(h5, loadMs) {
    this.h5 = h5;
    this.Module = h5.Module;
    this.FS = h5.FS;
    this.loadMs = loadMs;
    this.broken = null;
    this.stderr = [];
    this._captureStderr();
  }

  // HDF5 prints its error stack to stderr; keep it for error messages instead of the console.
  _captureStderr() {
    const stream = this.FS.getStream(2);
    const lines = this.stderr;
    const ops = {
      put_char(tty, val) {
        if (val === null || val === 10) {
          lines.push(new TextDecoder().decode(new Uint8Array(tty.output)));
          if (lines.length > 200) lines.splice(0, lines.length - 200);
          tty.output = [];
        } else if (val !== 0) tty.output.push(val);
      },
      fsync(tty) {
        if (tty.output?.length) ops.put_char(tty, 10);
      },
    };
    if (stream?.tty) stream.tty.ops = ops;
  }

  /** The innermost messages of HDF5's printed error stack for the last failed call ("not found", "truncated file ..."). */
  takeDiagnostics() {
    const lines = this.stderr.splice(0);
    const msgs = [];
    for (const l of lines) {
      const m = /#\d+: .* in (\w+)\(\): (.*)$/.exec(l);
      if (m) msgs.push(m[2].trim());
    }
    return msgs;
  }
}

// A parameter, not a literal: webpack resolves import.meta.resolve('literal') at build time and
// fails on h5wasm's exports; this path (a reload after a trap) only works unbundled anyway.
const resolveSpecifier = (name) => import.meta.resolve(name);

// Where h5wasm's ESM build sits beside this file when the bare name cannot be resolved (a module
// Worker in a browser without a bundler: import maps do not reach workers): in this project's
// tree, and in an installed package (node_modules/numdecode/js/hdf5 -> node_modules/h5wasm).
const FALLBACKS = ['../../node_modules/h5wasm/dist/esm/hdf5_hl.js', '../../../h5wasm/dist/esm/hdf5_hl.js'];

async function importH5wasm(g) {
  // A fresh module instance after a wasm trap: the same module under another specifier.
  if (g > 0) return import(/* webpackIgnore: true */ /* @vite-ignore */ `${resolveSpecifier('h5wasm')}?instance=${g}`);
  try {
    return await import('h5wasm');
  } catch (err) {
    // The bare name did not load (not installed, or not resolvable here): try where it would sit.
    for (const rel of FALLBACKS) {
      try {
        return await import(/* webpackIgnore: true */ /* @vite-ignore */ new URL(rel, import.meta.url).href);
      } catch {
        // next candidate
      }
    }
    throw err;
  }
}

async function load() {
  const t0 = typeof performance === 'object' ? performance.now() : Date.now();
  const g = generation;
  await loadWatchdog();
  const h5 = await importH5wasm(g);
  await h5.ready;
  const t1 = typeof performance === 'object' ? performance.now() : Date.now();
  return new Runtime(h5, t1 - t0);
}

/** The loaded h5wasm runtime (loaded once; reloaded when the last one broke). */
export async function getRuntime() {
  if (loading) {
    const rt = await loading;
    if (!rt.broken) return rt;
    generation += 1;
  }
  loading = load();
  loading.catch(() => {
    loading = null;
  });
  try {
    return await loading;
  } catch (err) {
    throw new Hdf5Error(
      `cannot load h5wasm, which numdecode reads HDF5 files with: install it beside numdecode (npm install h5wasm); ${err?.message ?? err}`,
      { code: CODES.NOT_INITIALIZED, cause: err },
    );
  }
}

/** Whether h5wasm has been loaded in this process (for tests and measurements). */
export function runtimeLoaded() {
  return loading !== null;
}
