// h5wasm, loaded on first use (dynamic import: directory, Pco and ALP users never download it),
// and the way operations run against a lazily read file (hdf5-lazy-file.js).
//
// An operation is a synchronous function of (Module, fileId) calling h5wasm's Module functions.
// Operations on one file are queued and run in passes: every queued operation runs; those that
// read bytes not yet fetched are set aside, the file handle is closed (HDF5 forgets whatever it
// parsed from zero-filled bytes), the missing blocks of all of them are fetched together, and
// they run again. Operations issued together (Promise.all in the matrix reader) thus share
// requests. HDF5's own error stack (printed to stderr) is captured and becomes the message of
// a BpcellsError; a wasm trap marks the runtime broken (the next open loads a fresh instance).
import { BpcellsError, NumdecodeError } from '../errors.js';
import { LazyHdf5File } from './hdf5-lazy-file.js';

const MAX_PASSES = 64;
// Wasm memory one operation may add beyond what it declares it needs: HDF5's caches and buffers.
// A damaged length field can otherwise make HDF5 allocate gigabytes before it checks the length
// against the file (seen in the mutation test); past the budget, its malloc fails and the
// operation ends with HDF5's "memory allocation failed".
const MEMORY_SLACK = 64 * 1024 * 1024;

// Runs fn with the growth of this runtime's wasm memory capped at `allowance` bytes. Emscripten
// grows memory through Memory.prototype.grow and treats a throw as "cannot grow"; the patch lives
// only for the synchronous call, and only this runtime's memory is refused.
function withMemoryBudget(Module, allowance, fn) {
  const proto = WebAssembly.Memory.prototype;
  const grow = proto.grow;
  const limit = Module.HEAPU8.length + allowance;
  proto.grow = function boundedGrow(delta) {
    if (this.buffer === Module.HEAPU8.buffer && this.buffer.byteLength + delta * 65536 > limit) {
      throw new RangeError('numdecode: HDF5 memory budget exceeded');
    }
    return grow.call(this, delta);
  };
  try {
    return fn();
  } finally {
    proto.grow = grow;
  }
}
const MAX_AHEAD_BLOCKS = 256;

// How long one synchronous HDF5 call may run (Node). A damaged file can send HDF5 round a loop
// that reads nothing (seen: a copied region made the version string's read spin forever); in
// Node, V8's watchdog (vm's timeout, which also stops wasm loops) ends such a call, and the
// runtime, interrupted mid-call, is replaced for the next file. Browsers have no such watchdog
// on the main thread: there the limit does not apply (see README).
export const DEFAULT_TIME_LIMIT_MS = 30000;
let watchdog = null; // Node: { script, context } of node:vm

async function loadWatchdog() {
  const isNode = typeof process === 'object' && typeof process.versions?.node === 'string';
  if (!isNode || watchdog) return;
  const vm = await import(/* webpackIgnore: true */ 'node:vm');
  const context = vm.createContext({ call: null });
  watchdog = { script: new vm.Script('call()'), context };
}

class Hdf5TimeLimit extends Error {}

// Runs the synchronous fn, stopped after ms where a watchdog exists.
function withTimeLimit(ms, fn) {
  if (watchdog === null || !(ms > 0) || ms === Infinity) return fn();
  watchdog.context.call = fn;
  try {
    return watchdog.script.runInContext(watchdog.context, { timeout: ms });
  } catch (err) {
    if (err?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new Hdf5TimeLimit(`HDF5 did not finish within ${ms} ms`);
    throw err;
  } finally {
    watchdog.context.call = null;
  }
}

function readAhead(passes) {
  return passes < 3 ? 0 : Math.min(MAX_AHEAD_BLOCKS, 2 ** (passes - 2));
}

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

  /** The innermost HDF5 error messages of the last failed call ("not found", "truncated file ..."). */
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
// tree, and in an installed package (node_modules/numdecode/js/bpcells -> node_modules/h5wasm).
const FALLBACKS = ['../../node_modules/h5wasm/dist/esm/hdf5_hl.js', '../../../h5wasm/dist/esm/hdf5_hl.js'];

async function importH5wasm(g) {
  // A fresh module instance after a wasm trap: the same module under another specifier.
  if (g > 0) return import(/* webpackIgnore: true */ /* @vite-ignore */ `${resolveSpecifier('h5wasm')}?instance=${g}`);
  try {
    return await import('h5wasm');
  } catch (err) {
    if (!/resolve|specifier/i.test(String(err?.message))) throw err;
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

/** The loaded h5wasm runtime (loaded once; reloaded after a wasm trap). */
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
    throw new BpcellsError(`cannot load h5wasm (needed for HDF5 files): ${err?.message ?? err}`, { code: 'ERR_NOT_INITIALIZED', cause: err });
  }
}

/** Whether h5wasm has been loaded in this process (for tests and measurements). */
export function runtimeLoaded() {
  return loading !== null;
}

/** An open HDF5 file: queued operations run in passes (see the header comment). */
export class Hdf5Handle {
  constructor(rt, file, size, options = {}) {
    this.rt = rt;
    this.file = file;
    this.lazy = new LazyHdf5File(rt, file, size, options);
    this.fileId = null;
    this.queue = [];
    this.pumping = false;
    this.passes = 0; // passes that had to fetch (for measurements)
    this.closed = false;
    this.timeLimit = options.timeLimit ?? DEFAULT_TIME_LIMIT_MS;
  }

  // One synchronous HDF5 call under the memory budget and the time limit.
  _call(allowance, fn) {
    return withTimeLimit(this.timeLimit, () => withMemoryBudget(this.rt.Module, allowance, fn));
  }

  get name() {
    return this.file.name;
  }

  /**
   * Runs fn(Module, fileId) until it completes without missing bytes. `what` names the object
   * for errors; fn's own BpcellsErrors pass through, other failures become BpcellsErrors.
   */
  run(what, fn, { readAhead = true, bytes = 0 } = {}) {
    if (this.closed) return Promise.reject(new BpcellsError(`${this.name}: the HDF5 file was closed`, { file: what }));
    return new Promise((resolve, reject) => {
      this.queue.push({ what, fn, resolve, reject, passes: 0, readAhead, allowance: MEMORY_SLACK + 2 * bytes });
      if (!this.pumping) this._pump();
    });
  }

  _openFile() {
    const M = this.rt.Module;
    const id = M.open(this.lazy.path, M.H5F_ACC_RDONLY, false, -1, -1);
    if (typeof id === 'bigint' ? id < 0n : id < 0) throw new Error('H5Fopen failed');
    return id;
  }

  _closeFile() {
    if (this.fileId === null) return;
    try {
      this.rt.Module.close_file(this.fileId);
    } catch {
      // a handle HDF5 already dropped
    }
    this.rt.stderr.length = 0;
    this.fileId = null;
  }

  // Turns whatever an h5wasm call threw into a BpcellsError.
  _error(op, err) {
    const diag = this.rt.takeDiagnostics();
    if (err instanceof BpcellsError) return err;
    if (this.lazy.ioError) return this.lazy.ioError; // the read that failed (an IoError naming the file)
    if (err instanceof Hdf5TimeLimit) {
      // Interrupted mid-call: this runtime's state is unknown, so the next open loads a fresh one.
      this.rt.broken ??= err;
      this.fileId = null;
      return new BpcellsError(`${op.what}: ${err.message} reading ${this.name}; the file is likely damaged (HDF5 looped)`, {
        file: op.what,
      });
    }
    if (err instanceof WebAssembly.RuntimeError || this.rt.broken) {
      this.rt.broken ??= err;
      return new BpcellsError(`${op.what}: the HDF5 library failed (${err?.message ?? err}) reading ${this.name}; the file is damaged`, {
        file: op.what,
        cause: err,
      });
    }
    const detail = diag.length ? diag.slice(-2).reverse().join(': ') : (err?.message ?? String(err));
    const where = op.what === this.name ? '(HDF5)' : `(HDF5, in ${this.name})`;
    return new BpcellsError(`${op.what}: ${detail} ${where}`, { file: op.what, cause: err });
  }

  async _pump() {
    this.pumping = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0);
        const again = [];
        const lazy = this.lazy;
        if (this.rt.broken) {
          for (const op of batch) op.reject(this._error(op, this.rt.broken));
          continue;
        }
        // Open (or reopen after a pass that missed bytes).
        let openFailed = null;
        let openMissing = null;
        if (this.fileId === null) {
          lazy.beginPass();
          this.rt.stderr.length = 0;
          try {
            this.fileId = this._call(MEMORY_SLACK, () => this._openFile());
          } catch (err) {
            openFailed = err;
          }
          if (lazy.missed) {
            this._closeFile();
            openMissing = lazy.missing;
            again.push(...batch);
          } else if (openFailed) {
            const e = this._error({ what: this.name }, openFailed);
            e.message = e.message.replace(/^bpcells: /, 'bpcells: cannot open as HDF5: ');
            for (const op of batch) op.reject(e);
            this.rt.takeDiagnostics();
            continue;
          }
        }
        if (again.length === 0) {
          for (const op of batch) {
            if (this.rt.broken) {
              op.reject(this._error(op, this.rt.broken)); // an earlier call of this batch broke the runtime
              continue;
            }
            lazy.beginPass();
            this.rt.stderr.length = 0;
            let result;
            let failure = null;
            try {
              result = this._call(op.allowance, () => op.fn(this.rt.Module, this.fileId));
            } catch (err) {
              failure = err;
            }
            if (lazy.missed) {
              op.missing = lazy.missing;
              op.missedBytes = lazy.missedBytes;
              again.push(op);
              continue;
            }
            if (failure) op.reject(this._error(op, failure));
            else op.resolve(result);
            this.rt.stderr.length = 0;
          }
        }
        if (again.length === 0) continue;
        this._closeFile();
        this.passes += 1;
        const over = again.filter((op) => ++op.passes > MAX_PASSES);
        for (const op of over) {
          op.reject(new BpcellsError(`${op.what}: still missing bytes of ${this.name} after ${MAX_PASSES} fetch rounds`, { file: op.what }));
        }
        const retry = again.filter((op) => op.passes <= MAX_PASSES);
        // Read-ahead doubles with each pass an operation has needed (capped), so that a read
        // crossing many chunks needs a logarithmic number of passes, not one per chunk.
        // A missed raw-data chunk (a large read) is likely followed by the next one: fetch as
        // much again after it.
        const bs = lazy.blockSize;
        const wants = retry
          .filter((op) => op.missing)
          .map((op) => ({
            blocks: op.missing,
            ahead: op.readAhead ? Math.max(readAhead(op.passes), op.missedBytes >= 4096 ? Math.ceil(Math.min(op.missedBytes, 8192) / bs) : 0) : 0,
          }));
        if (openMissing) wants.push({ blocks: openMissing, ahead: 0 });
        for (const op of retry) op.missing = null;
        try {
          await lazy.fetchMissing(wants);
        } catch (err) {
          const e = err instanceof NumdecodeError ? err : new BpcellsError(`${this.name}: ${err?.message ?? err}`, { file: this.name, cause: err });
          for (const op of retry) op.reject(e);
          continue;
        }
        this.queue.unshift(...retry);
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Fetches bytes [start, end) ahead of HDF5 asking (async sources only). */
  prefetch(start, end) {
    return this.lazy.prefetch(start, end);
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    this._closeFile();
    this.lazy.close();
  }
}

/** Opens `file` (a byte file) for HDF5 operations. */
export async function openHandle(file, options = {}) {
  const rt = await getRuntime();
  const size = await file.size();
  return new Hdf5Handle(rt, file, size, options);
}
