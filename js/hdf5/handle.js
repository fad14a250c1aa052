// One open HDF5 file and the way operations run against it (the file read lazily: lazy-file.js).
//
// An operation is a synchronous function of (Module, fileId) calling h5wasm's Module functions.
// Operations on one file are queued and run in passes: every queued operation runs; those that
// read bytes not yet fetched are set aside, the file handle is closed (HDF5 forgets whatever it
// parsed from unfetched bytes), the missing blocks of all of them are fetched together, and they
// run again. Operations issued together (Promise.all in a reader) thus share requests. Every call
// runs under a memory budget and, in Node, a time limit; a failure becomes an Hdf5Error naming the
// file (`file`) and the object (`dataset`: "/mat/idxptr") with HDF5's own diagnosis as the message.
import { Hdf5Error, NumdecodeError } from '../errors.js';
import { ChunkIndex } from './chunk-index.js';
import { LazyHdf5File } from './lazy-file.js';
import { getRuntime } from './runtime.js';
import { DEFAULT_TIME_LIMIT_MS, TimeLimitExceeded, withTimeLimit } from './time-limit.js';

const MAX_PASSES = 64;
// A trap (a WebAssembly.RuntimeError) leaves h5wasm's stack and heap where it stopped: the runtime
// is replaced by a fresh one (every open file moves to it at its next operation) and the
// operation runs again there. One that traps this often, each time on a fresh runtime, fails: the
// file is damaged. (HDF5 traps now and then on the error path of a read that found bytes missing,
// which every pass over a remote file meets; kept running, such a runtime failed a later call
// with "memory access out of bounds", ~130 reads into a fault sweep.)
const MAX_TRAPS = 2;
const MAX_AHEAD_BLOCKS = 256;
// HDF5 reads a global heap collection (where variable-length strings live) by its first 4 KiB
// (H5HG_MINSIZE) and then the rest, 64 KiB in the files h5py and BPCells write: a string read
// that misses exactly 4 KiB fetches the 64 KiB at once (one round trip instead of two).
export const HEAP_FIRST_READ = 4096;
const HEAP_AHEAD = 64 * 1024 - HEAP_FIRST_READ;
// Wasm memory one operation may add beyond what it declares it needs: HDF5's caches and buffers.
// A damaged length field can otherwise make HDF5 allocate gigabytes before it checks the length
// against the file (seen in the mutation test); past the budget, its malloc fails and the
// operation ends with HDF5's "memory allocation failed".
const MEMORY_SLACK = 64 * 1024 * 1024;

// Runs fn with the growth of this runtime's wasm memory capped at `allowance` bytes. Emscripten
// grows memory through Memory.prototype.grow and treats a throw as "cannot grow"; the patch lives
// only for the synchronous call, and only this runtime's memory is refused. A call the time
// limit stops never reaches its finally (V8 terminates it): unpatchGrow() is called after it.
let unpatch = null;
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
  unpatch = () => (proto.grow = grow);
  try {
    return fn();
  } finally {
    unpatchGrow();
  }
}

// Puts Memory.prototype.grow back (a patch left in place would keep the stopped runtime alive,
// one more wrapper after each time-out).
function unpatchGrow() {
  unpatch?.();
  unpatch = null;
}

function readAhead(passes) {
  return passes < 3 ? 0 : Math.min(MAX_AHEAD_BLOCKS, 2 ** (passes - 2));
}

/** An open HDF5 file: queued operations run in passes (see the header comment). options: blockSize, cacheBytes, concurrency (the lazy file's), timeLimit (ms). */
export class Hdf5Handle {
  constructor(rt, file, size, options = {}) {
    this.rt = rt;
    this.file = file;
    this.lazy = new LazyHdf5File(rt, file, size, options);
    // Chunk B-tree nodes HDF5 reads, by the dataset (op.what) that read them: a prefetch planner.
    const lazy = this.lazy;
    this.index = new ChunkIndex({ peek: (s, e) => lazy.peek(s, e), has: (s, e) => lazy.has(s, e), maxBytes: lazy.cacheBytes / 4 }, size);
    this.current = null;
    this.looped = null; // {what, error} of the call of this batch the time limit stopped
    this.lazy.onRead = (position, bytes) => this.index.saw(this.current, position, bytes);
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

  // An error's fields: the file, and the object (`what`) when it is one of the file's.
  _where(what) {
    return what === this.name ? { file: this.name } : { file: this.name, dataset: what };
  }

  /**
   * Runs fn(Module, fileId) until it completes without missing bytes. `what` names the object
   * for errors; fn's own NumdecodeErrors pass through, other failures become Hdf5Errors.
   * Async sources: `plan()` gives byte ranges to fetch with the operation's misses (chunk-index.js);
   * `settle()`, after a pass that missed, may end it there (resolved with undefined: a warm-up);
   * `heapAhead`: see HEAP_AHEAD.
   */
  run(what, fn, { readAhead = true, bytes = 0, plan = null, settle = null, heapAhead = false } = {}) {
    if (this.closed) return Promise.reject(new Hdf5Error(`${this.name}: the HDF5 file was closed`, this._where(what)));
    return new Promise((resolve, reject) => {
      this.queue.push({ what, fn, resolve, reject, passes: 0, traps: 0, readAhead, plan, settle, heapAhead, allowance: MEMORY_SLACK + 2 * bytes });
      if (this.pumping) return;
      // A file read synchronously runs the operation now. Otherwise the first pass waits for the
      // next macrotask, so that the operations a reader issues together (after a few awaits of
      // its own: Promise.all of the seek tables of two streams) share one pass and one round trip.
      if (this.lazy.sync) this._pump();
      else {
        this.pumping = true;
        setTimeout(() => this._pump(), 0);
      }
    });
  }

  /** Whether runNow() can run an operation now (else run() must: it moves the file to a fresh runtime). */
  get canRunNow() {
    return this.lazy.sync && !this.closed && !this.pumping && this.queue.length === 0 && !this.rt.broken;
  }

  /**
   * For a file read synchronously: runs fn(Module, fileId) now and returns its result, or throws
   * what run() would reject with. Used to write a dataset's values straight into another module's
   * memory. Every operation on such a file completes inside run(), so none is queued here, except
   * while the runtime is being replaced after a trap. A trap in this call, or a runtime a trap
   * elsewhere broke since the caller asked canRunNow, cannot be retried here as run() would retry
   * it (a fresh runtime loads asynchronously): it is an Hdf5Error with `runtimeReplaced: true`,
   * and the same read made again (through run()) runs on a fresh runtime.
   */
  runNow(what, fn, { bytes = 0 } = {}) {
    if (this.closed) throw new Hdf5Error(`${this.name}: the HDF5 file was closed`, this._where(what));
    if (!this.lazy.sync) throw new TypeError('runNow: only for files read synchronously');
    const replaced = (cause) =>
      Object.assign(
        new Hdf5Error(`${what}: the HDF5 runtime failed (${cause?.message ?? cause}) and is being replaced; read again (${this.name})`, {
          ...this._where(what),
          cause,
        }),
        { runtimeReplaced: true },
      );
    if (!this.canRunNow) throw replaced(this.rt.broken ?? 'busy');
    let settled = null;
    const op = { what, fn, passes: 0, traps: 0, allowance: MEMORY_SLACK + 2 * bytes };
    op.resolve = (value) => (settled = { value });
    op.reject = (error) => (settled = { error });
    if (this.fileId === null) {
      this.lazy.beginPass();
      this.rt.stderr.length = 0;
      try {
        this.fileId = this._call(MEMORY_SLACK, () => this._openFile());
      } catch (err) {
        if (err instanceof WebAssembly.RuntimeError) {
          this._breakRuntime(err);
          throw replaced(err);
        }
        throw this._error({ what: this.name }, err, true);
      }
    }
    const again = [];
    this._runBatch([op], again);
    if (settled === null) throw replaced(this.rt.broken); // a trap: set aside for a fresh runtime
    if (settled.error) throw settled.error;
    return settled.value;
  }

  _openFile() {
    const M = this.rt.Module;
    const id = M.open(this.lazy.path, M.H5F_ACC_RDONLY, false, -1, -1);
    if (typeof id === 'bigint' ? id < 0n : id < 0) throw new Error('H5Fopen failed');
    return id;
  }

  _closeFile() {
    if (this.fileId === null) return;
    if (this.rt.broken) {
      this.fileId = null; // gone with the runtime
      return;
    }
    try {
      this.rt.Module.close_file(this.fileId);
    } catch {
      // a handle HDF5 already dropped
    }
    this.rt.stderr.length = 0;
    this.fileId = null;
  }

  // What an h5wasm call's failure becomes: the caller's own errors and a failed read (an IoError
  // naming the file) pass through; anything else is an Hdf5Error naming the object (op.what) with
  // HDF5's diagnosis. `opening`: the file itself would not open.
  _error(op, err, opening = false) {
    const diag = this.rt.takeDiagnostics();
    if (err instanceof NumdecodeError) return err;
    if (this.lazy.ioError) return this.lazy.ioError;
    const what = opening ? `cannot open as HDF5: ${op.what}` : op.what;
    if (err instanceof TimeLimitExceeded) {
      // Interrupted mid-call: this runtime's state is unknown, so the next open loads a fresh one.
      unpatchGrow();
      this._breakRuntime(err);
      const looped = new Hdf5Error(`${what}: ${err.message} reading ${this.name}; the file is likely damaged (HDF5 looped)`, this._where(op.what));
      this.looped = { what: op.what, error: looped }; // for the calls on the same object behind it (_runBatch)
      return looped;
    }
    if (err instanceof WebAssembly.RuntimeError || this.rt.broken) {
      this.rt.broken ??= err;
      return new Hdf5Error(`${what}: the HDF5 library failed (${err?.message ?? err}) reading ${this.name}; the file is damaged`, {
        ...this._where(op.what),
        cause: err,
      });
    }
    const detail = diag.length ? diag.slice(-2).reverse().join(': ') : (err?.message ?? String(err));
    const where = op.what === this.name ? '(HDF5)' : `(HDF5, in ${this.name})`;
    return new Hdf5Error(`${what}: ${detail} ${where}`, { ...this._where(op.what), cause: err });
  }

  // Runs one operation (the file is open): resolved, rejected, or set aside in `again` when it
  // read bytes not fetched yet. `call(allowance, fn)`: how the HDF5 call is guarded.
  _runOp(op, again, call) {
    const lazy = this.lazy;
    if (this.rt.broken) {
      again.push(op); // an earlier call of this batch broke the runtime: again on a fresh one
      return;
    }
    lazy.beginPass();
    this.rt.stderr.length = 0;
    let result;
    let failure = null;
    this.current = op.what;
    try {
      result = call(op.allowance, () => op.fn(this.rt.Module, this.fileId));
    } catch (err) {
      failure = err;
    } finally {
      this.current = null;
    }
    const trapped = failure instanceof WebAssembly.RuntimeError;
    if (trapped) {
      this._breakRuntime(failure);
      if (++op.traps >= MAX_TRAPS) {
        op.reject(this._error(op, failure));
        return;
      }
    }
    if (lazy.missed && op.settle?.()) {
      op.resolve(undefined);
      return;
    }
    if (lazy.missed) {
      op.missing = lazy.missing;
      op.missedBytes = lazy.missedBytes;
      again.push(op);
      return;
    }
    if (trapped) {
      again.push(op); // on a fresh runtime
      return;
    }
    if (failure) op.reject(this._error(op, failure));
    else op.resolve(result);
    this.rt.stderr.length = 0;
  }

  // Runs a batch of operations, each under its own time limit for a file read synchronously, all
  // under one over async sources (the watchdog costs ~1 ms a call, as much as a small read's HDF5
  // work): the operation running when time runs out fails, and so do the ones after it on the
  // same object; the others never ran, and run again on a fresh runtime, as after a trap.
  _runBatch(batch, again) {
    const budget = (allowance, fn) => withMemoryBudget(this.rt.Module, allowance, fn);
    this.looped = null;
    if (this.lazy.sync) {
      for (const op of batch) {
        if (this.looped?.what === op.what) op.reject(this.looped.error); // as below: it would loop again
        else this._runOp(op, again, (allowance, fn) => this._call(allowance, fn));
      }
      return;
    }
    let at = 0;
    try {
      withTimeLimit(this.timeLimit, () => {
        for (; at < batch.length; at++) this._runOp(batch[at], again, budget);
      });
    } catch (err) {
      this.current = null;
      if (at >= batch.length) return; // stopped after the last operation had finished: nothing lost
      batch[at].reject(this._error(batch[at], err));
      // (stopped after it set itself aside, before the loop moved on: it must not run again)
      if (again.at(-1) === batch[at]) again.pop();
      // HDF5 is deterministic: a call on the same object would loop again (70 reads of one damaged
      // string took 70 time limits and as many runtimes); it fails with the same error. Calls on
      // other objects run again on a fresh runtime.
      for (const op of batch.slice(at + 1)) {
        if (this.looped?.what === op.what) op.reject(this.looped.error);
        else again.push(op);
      }
    }
  }

  async _pump() {
    this.pumping = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0);
        const again = [];
        const lazy = this.lazy;
        if (this.rt.broken) {
          // A trap (here or in another file's call) or a call stopped by the time limit broke the
          // runtime: this file moves to a fresh one.
          try {
            await this._freshRuntime();
          } catch (err) {
            for (const op of batch) op.reject(err);
            continue;
          }
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
          if (openFailed instanceof WebAssembly.RuntimeError) {
            this._breakRuntime(openFailed);
            const retry = [];
            for (const op of batch) {
              if (++op.traps < MAX_TRAPS) retry.push(op);
              else op.reject(this._error({ what: this.name }, openFailed, true));
            }
            this.queue.unshift(...retry); // on a fresh runtime, with what the open missed fetched then
            continue;
          }
          if (lazy.missed) {
            this._closeFile();
            openMissing = lazy.missing;
            again.push(...batch);
          } else if (openFailed) {
            const e = this._error({ what: this.name }, openFailed, true);
            for (const op of batch) op.reject(e);
            this.rt.takeDiagnostics();
            continue;
          }
        }
        if (again.length === 0) this._runBatch(batch, again);
        if (again.length === 0) continue;
        this._closeFile();
        this.passes += 1;
        // A fetch round counts for the operations that missed bytes; those run again because
        // another one trapped or ran out of time did not (each such pass ends at least one).
        const over = again.filter((op) => op.missing && ++op.passes > MAX_PASSES);
        for (const op of over) {
          op.reject(new Hdf5Error(`${op.what}: still missing bytes of ${this.name} after ${MAX_PASSES} fetch rounds`, this._where(op.what)));
        }
        const retry = again.filter((op) => !over.includes(op));
        // Read-ahead doubles with each pass an operation has needed (capped), so that a read
        // crossing many chunks needs a logarithmic number of passes, not one per chunk.
        // A missed raw-data chunk (a large read) is likely followed by the next one: fetch as
        // much again after it.
        // An operation with a plan fetches what HDF5 will read: no read-ahead.
        const bs = lazy.blockSize;
        const extra = [];
        const wants = retry
          .filter((op) => op.missing)
          .map((op) => {
            const planned = op.plan?.() ?? [];
            extra.push(...planned);
            let ahead = 0;
            if (op.readAhead && planned.length === 0) {
              ahead = Math.max(readAhead(op.passes), op.missedBytes >= 4096 ? Math.ceil(Math.min(op.missedBytes, 8192) / bs) : 0);
            }
            if (op.heapAhead && op.missedBytes === HEAP_FIRST_READ) ahead = Math.max(ahead, Math.ceil(HEAP_AHEAD / bs));
            return { blocks: op.missing, ahead };
          });
        if (openMissing) wants.push({ blocks: openMissing, ahead: 0 });
        for (const op of retry) op.missing = null;
        try {
          await lazy.fetchMissing(wants, extra);
        } catch (err) {
          const e = err instanceof NumdecodeError ? err : new Hdf5Error(`${this.name}: ${err?.message ?? err}`, { file: this.name, cause: err });
          for (const op of retry) op.reject(e);
          continue;
        }
        this.queue.unshift(...retry);
      }
    } finally {
      this.pumping = false;
      this.lazy.settle();
    }
  }

  // A call trapped or ran out of time: the runtime's state is unknown and its file handles gone
  // with it (the next pass moves this file to a fresh one: _freshRuntime).
  _breakRuntime(err) {
    this.rt.broken ??= err;
    this.fileId = null;
  }

  // This file on a fresh h5wasm runtime (getRuntime loads one when the last is broken).
  async _freshRuntime() {
    this.fileId = null;
    const rt = await getRuntime();
    if (rt === this.rt) return;
    this.rt = rt;
    this.lazy.moveTo(rt);
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
