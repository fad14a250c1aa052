// numdecode/worker: decode off the main thread, in browser Web Workers or Node worker_threads.
//
//   const pool = await createWorkerPool({ size: 4 });
//   const values = await pool.decodePco(bytes);                         // one file
//   const all = await pool.decodePcoMany(files);                        // many files, in parallel
//   const info = await pool.run({ format: 'pco', op: 'inspect', args: [bytes] });  // any job
//   await pool.terminate();                                              // or pool.close()
// Each worker loads its own numdecode module. A job is {format, op, args}: format is an export of
// numdecode ('pco', 'alp', 'bpcells', ...), op one of its functions, args its arguments (structured-
// cloned into the worker). Results come back with their typed arrays transferred, not copied.
import { CODES, NumdecodeError, abortError, deserializeError } from '../errors.js';
import { DROPPED, SpareBuffers, answered, planBatches, prepareArgs, settleCall, withFileIndex } from './messages.js';

export { planBatches, CODES, NumdecodeError };

const terminatedError = () => new NumdecodeError('numdecode worker pool: terminated', { code: CODES.ABORTED });

const isNode =
  typeof process === 'object' && typeof process.versions === 'object' && typeof process.versions.node === 'string';

async function defaultSize() {
  if (isNode) {
    const os = await import(/* webpackIgnore: true */ 'node:os');
    return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  }
  return globalThis.navigator?.hardwareConcurrency ?? 2;
}

// True when this file came from another http(s) origin than the page (a CDN). Bundlers that
// inline import.meta.url as a file: URL (webpack) keep the plain path.
function servedFromOtherOrigin() {
  const here = new URL(import.meta.url);
  return (here.protocol === 'http:' || here.protocol === 'https:') && here.origin !== globalThis.location?.origin;
}

// Browsers refuse a Worker script from another origin: a same-origin blob worker imports it
// instead (the CDN must allow CORS, as it must for the module imports and the .wasm anyway).
function crossOriginWorker() {
  const script = `import ${JSON.stringify(new URL('worker.js', new URL(import.meta.url)).href)};`;
  const blobUrl = URL.createObjectURL(new Blob([script], { type: 'text/javascript' }));
  try {
    return new Worker(blobUrl, { type: 'module' });
  } finally {
    URL.revokeObjectURL(blobUrl); // the Worker has resolved it already
  }
}

// One Worker behind one interface, whichever platform runs it.
async function spawn() {
  if (isNode) {
    const { Worker } = await import(/* webpackIgnore: true */ 'node:worker_threads');
    // Workers inherit the parent's Node flags; --input-type (node -e with ESM) is refused in a worker.
    const execArgv = process.execArgv.filter((arg) => !arg.startsWith('--input-type'));
    // Not new URL('./worker.js', import.meta.url) here: bundlers would copy worker.js unbundled
    // for this Node-only branch (webpack then fails minifying it).
    const here = import.meta.url;
    const file = new URL('./worker.js', here);
    let w;
    try {
      w = new Worker(file, { execArgv });
    } catch (err) {
      // A process started with V8 flags (--max-old-space-size, --expose-gc...) cannot pass them to
      // a worker; worker.js needs none of the parent's flags.
      if (err?.code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw err;
      w = new Worker(file, { execArgv: [] });
    }
    return {
      post: (msg, transfer) => w.postMessage(msg, transfer),
      onMessage: (fn) => w.on('message', fn),
      onFailure: (fn) => {
        w.on('error', fn);
        w.on('exit', (code) => fn(new Error(`numdecode worker exited with code ${code}`)));
      },
      ref: () => w.ref(),
      unref: () => w.unref(),
      terminate: () => w.terminate(),
    };
  }
  // Written out in full so that bundlers (Vite, webpack) see the worker and bundle it.
  const w = servedFromOtherOrigin()
    ? crossOriginWorker()
    : new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  return {
    post: (msg, transfer) => w.postMessage(msg, transfer),
    onMessage: (fn) => w.addEventListener('message', (e) => fn(e.data)),
    onFailure: (fn) => {
      w.addEventListener('error', (e) => {
        e.preventDefault?.();
        fn(new Error(`numdecode worker failed: ${e.message ?? 'error event'}`));
      });
      w.addEventListener('messageerror', () => fn(new Error('numdecode worker: a message could not be deserialized')));
    },
    ref: () => {},
    unref: () => {},
    terminate: () => w.terminate(),
  };
}

// A decode job's arguments: its inputs, then the decoder's own options (maxOutputBytes) where given.
function decodeArgs(inputs, options) {
  return options?.maxOutputBytes === undefined ? inputs : [...inputs, { maxOutputBytes: options.maxOutputBytes }];
}

// The worker's error rebuilt here: same class (NumdecodeError family, TypeError, ...), code,
// location fields and cause.
const toError = deserializeError;

function validateJob(job) {
  if (job === null || typeof job !== 'object') throw new TypeError('numdecode worker pool: a job is {format, op, args}');
  if (typeof job.format !== 'string' || typeof job.op !== 'string') {
    throw new TypeError('numdecode worker pool: job.format and job.op must be strings');
  }
  if (job.args !== undefined && !Array.isArray(job.args)) throw new TypeError('numdecode worker pool: job.args must be an array');
}

// Jobs posted to one worker before the one it runs has answered: the next message waits in the
// worker's inbox instead of a round trip away (with one at a time, a worker sat idle for a reply's
// trip and the next message's after every job: ~0.2 ms, a fifth of a batch of small chunks).
const JOBS_PER_WORKER = 2;

class Slot {
  constructor(handle) {
    this.handle = handle;
    this.jobs = []; // posted, in the order the worker runs them: jobs[0] is running
    this.dead = false;
  }
}

export class WorkerPool {
  #slots = [];
  #queue = [];
  #nextId = 1;
  #terminated = false;
  #initOptions;
  #completed = 0;
  #failed = 0;
  #spares = new SpareBuffers();

  /** Use createWorkerPool(). */
  constructor(initOptions) {
    // A URL object reaches a worker as {} (postMessage clones own fields; it has none): its href does.
    this.#initOptions = initOptions?.wasmUrl instanceof URL ? { ...initOptions, wasmUrl: initOptions.wasmUrl.href } : initOptions;
  }

  /** {simd, version} of the module the workers loaded. */
  buildInfo = null;

  /** Number of workers. */
  get size() {
    return this.#slots.length;
  }

  async _start(size) {
    const started = await Promise.allSettled(Array.from({ length: size }, () => this.#startWorker()));
    const failure = started.find((s) => s.status === 'rejected');
    if (failure) {
      for (const s of started) if (s.status === 'fulfilled') await s.value.handle.terminate();
      throw failure.reason;
    }
    this.#slots = started.map((s) => s.value);
  }

  async #startWorker() {
    const handle = await spawn();
    const slot = new Slot(handle);
    let readyResolve;
    let readyReject;
    const ready = new Promise((resolve, reject) => {
      readyResolve = resolve;
      readyReject = reject;
    });
    handle.onMessage((msg) => {
      if (msg?.type === 'ready') {
        if (msg.error) readyReject(toError(msg.error));
        else readyResolve(msg.buildInfo);
        return;
      }
      this.#finish(slot, msg);
    });
    handle.onFailure((err) => {
      readyReject(err);
      this.#crash(slot, err);
    });
    handle.post({ type: 'init', options: this.#initOptions });
    try {
      this.buildInfo = await ready;
    } catch (err) {
      await handle.terminate();
      throw new Error(`numdecode worker pool: a worker could not load numdecode: ${err.message}`);
    }
    handle.unref(); // an idle pool does not keep Node running
    return slot;
  }

  /**
   * Runs one job in the next free worker.
   * @param {{format: string, op: string, args?: any[]}} job
   * @param {{transfer?: boolean, signal?: AbortSignal}} [options] transfer: move the arguments'
   *   ArrayBuffers into the worker instead of copying them (they become detached, length 0, in the
   *   caller); signal: abort the job (a queued job is dropped, a running one's worker is replaced)
   * @returns {Promise<any>} the operation's result; rejects with the worker's error
   */
  run(job, options = {}) {
    return this.#enqueueJob(job, options, null);
  }

  #enqueueJob(job, options, group) {
    try {
      validateJob(job);
    } catch (err) {
      return Promise.reject(err);
    }
    const move = options?.transfer === true;
    const prepare = () => {
      const { args, transfer } = prepareArgs(job.args ?? [], move);
      return { message: { format: job.format, op: job.op, args }, transfer };
    };
    return this.#enqueue(prepare(), options?.signal, move ? null : prepare, { group });
  }

  /**
   * Runs several jobs in one worker, with one message each way: for many small jobs, where
   * messaging would cost more than decoding. Resolves to the results in order; rejects with the
   * first failing job's error (err.jobIndex tells which).
   * @param {{format: string, op: string, args?: any[]}[]} jobs
   * @param {{transfer?: boolean}} [options]
   */
  runBatch(jobs, options = {}) {
    return this.#runBatch(jobs, options, null);
  }

  #runBatch(jobs, options, group) {
    try {
      if (!Array.isArray(jobs)) throw new TypeError('numdecode worker pool: runBatch takes an array of jobs');
      jobs.forEach(validateJob);
    } catch (err) {
      return Promise.reject(err);
    }
    const move = options?.transfer === true;
    const prepare = () => {
      const transfer = new Set();
      const batch = jobs.map((j) => {
        const prepared = prepareArgs(j.args ?? [], move);
        prepared.transfer.forEach((b) => transfer.add(b));
        return { format: j.format, op: j.op, args: prepared.args };
      });
      return { message: { batch }, transfer: [...transfer] };
    };
    return this.#enqueue(prepare(), options?.signal, move ? null : prepare, { group });
  }

  // prepared: {message, transfer}; again: prepares it anew (copies of the caller's arrays), or null
  // when the caller's buffers themselves were moved (options.transfer): such a job, posted behind
  // another to a worker that is then stopped, cannot be sent again.
  // files: how many jobs the message stands for in stats() (decodePcoMany's files), 1 else;
  // group: the call the message belongs to, for #dropQueued.
  #enqueue({ message, transfer }, signal, again, { files = 1, group = null } = {}) {
    if (this.#terminated) return Promise.reject(terminatedError());
    if (signal?.aborted) return Promise.reject(abortError(signal, 'numdecode worker pool job'));
    return new Promise((resolve, reject) => {
      const item = { id: this.#nextId++, message, transfer, again, resolve, reject, files, group };
      if (signal) {
        const onAbort = () => this.#abort(item, abortError(signal, 'numdecode worker pool job'));
        signal.addEventListener('abort', onAbort, { once: true });
        const done = () => signal.removeEventListener('abort', onAbort);
        item.resolve = (v) => (done(), resolve(v));
        item.reject = (e) => (done(), reject(e));
      }
      this.#queue.push(item);
      this.#dispatch();
    });
  }

  // A call that has failed drops its messages not yet posted (their results would be thrown away).
  #dropQueued(group) {
    const dropped = this.#queue.filter((item) => item.group === group);
    this.#queue = this.#queue.filter((item) => item.group !== group);
    for (const item of dropped) item.reject(DROPPED);
  }

  // An aborted job: dropped from the queue, or, when a worker already runs it, that worker is
  // stopped and replaced (a decode cannot be interrupted inside wasm).
  #abort(item, err) {
    const queued = this.#queue.indexOf(item);
    if (queued >= 0) {
      this.#queue.splice(queued, 1);
      item.reject(err);
      return;
    }
    const slot = this.#slots.find((s) => s.jobs.includes(item));
    if (!slot) return;
    if (slot.jobs[0] === item) {
      this.#crash(slot, err);
      return;
    }
    // Posted but not started: it fails now; the worker's answer to it will find no taker.
    slot.jobs.splice(slot.jobs.indexOf(item), 1);
    item.reject(err);
  }

  /** pco.decode in a worker; options.maxOutputBytes goes to the decoder, transfer to run(). */
  decodePco(bytes, options) {
    return this.run({ format: 'pco', op: 'decode', args: decodeArgs([bytes], options) }, options);
  }

  /**
   * pco.decode of each file, spread over the workers; resolves in input order. Small files go
   * to the workers in batches (about four batches per worker) so that messaging does not
   * dominate; options.batch = false sends one message per file. A failing file rejects the call
   * with its error (err.jobIndex: its index in `files`) once the call's other messages have come
   * back or been dropped unsent, so the pool is not left working for a failed call.
   * @param {Iterable<Uint8Array>} files
   * @param {{transfer?: boolean, batch?: boolean}} [options]
   */
  async decodePcoMany(files, options = {}) {
    const list = Array.from(files);
    const job = (bytes) => ({ format: 'pco', op: 'decode', args: decodeArgs([bytes], options) });
    // One call's messages: when one fails the others not yet posted are dropped, and the call
    // settles once those posted have come back, so a failed call leaves the pool idle.
    const group = {};
    const settle = (promises) => settleCall(promises, () => this.#dropQueued(group));
    // Whichever way the files go, a file's failure names its index in `files`.
    const naming = (indexes) => (err) => Promise.reject(withFileIndex(err, indexes));
    if (options?.batch === false) {
      return settle(list.map((bytes, i) => this.#enqueueJob(job(bytes), options, group).catch(naming([i]))));
    }
    const batches = planBatches(list.map((f) => f.byteLength), Math.max(this.size, 1));
    // Moved files go as they are, one job each in a batch (no copy); copied ones go back to back in
    // one buffer a batch (a job object and a buffer per small file cost more to send than to decode).
    if (options?.transfer === true) {
      const results = await settle(batches.map((indexes) => this.#runBatch(indexes.map((i) => job(list[i])), options, group).catch(naming(indexes))));
      return results.flat();
    }
    const results = await settle(
      batches.map((indexes) => {
        const prepare = () => {
          const { packed, ends } = this.#spares.pack(indexes.map((i) => list[i]));
          return { message: { format: 'pcoMany', op: 'decodeFiles', args: decodeArgs([packed, ends], options) }, transfer: [packed.buffer, ends.buffer] };
        };
        return this.#enqueue(prepare(), options?.signal, prepare, { files: indexes.length, group }).then(
          ({ results, files: sent }) => {
            this.#spares.keep(sent.buffer);
            return results;
          },
          naming(indexes),
        );
      }),
    );
    return results.flat();
  }

  /** {size, busy, queued, completed, failed}: busy workers and queued messages (a batch is one);
   * completed and failed jobs (a batch counts each of its jobs that ran). */
  stats() {
    return {
      size: this.#slots.length,
      busy: this.#slots.filter((s) => s.jobs.length > 0).length,
      // waiting here, or posted to a worker that is running another
      queued: this.#queue.length + this.#slots.reduce((n, s) => n + Math.max(0, s.jobs.length - 1), 0),
      completed: this.#completed,
      failed: this.#failed,
    };
  }

  /** terminate(), by the name every other resource of numdecode closes with. */
  close() { return this.terminate(); }

  /** Stops every worker; jobs still queued or running reject. */
  async terminate() {
    if (this.#terminated) return;
    this.#terminated = true;
    const error = terminatedError();
    for (const item of this.#queue.splice(0)) item.reject(error);
    const slots = this.#slots;
    this.#slots = [];
    for (const slot of slots) {
      slot.dead = true;
      for (const job of slot.jobs.splice(0)) job.reject(error);
    }
    await Promise.all(slots.map((s) => s.handle.terminate()));
  }

  /** For tests: stops worker `index` as if it had crashed (its job rejects, a new worker replaces it). */
  _terminateWorker(index) {
    const slot = this.#slots[index];
    if (!slot) throw new RangeError(`numdecode worker pool: no worker ${index}`);
    slot.handle.terminate();
    // Browsers report no event for a terminated worker: handle it as a crash here.
    this.#crash(slot, new Error('numdecode worker pool: the worker died'));
  }

  // Idle workers first, then a second job to each busy one (JOBS_PER_WORKER).
  #dispatch() {
    for (let depth = 0; depth < JOBS_PER_WORKER; depth++) {
      for (const slot of this.#slots) {
        if (this.#queue.length === 0) return;
        if (slot.dead || slot.jobs.length !== depth) continue;
        const item = this.#queue.shift();
        slot.jobs.push(item);
        slot.handle.ref();
        try {
          slot.handle.post({ id: item.id, ...item.message }, item.transfer);
        } catch (err) {
          // e.g. an argument that cannot be cloned: the worker never saw the job.
          slot.jobs.pop();
          if (slot.jobs.length === 0) slot.handle.unref();
          this.#failed++;
          item.reject(err);
        }
      }
    }
  }

  #finish(slot, msg) {
    const at = slot.jobs.findIndex((job) => job.id === msg?.id);
    if (at < 0) return; // an answer to a job aborted after it was posted
    const [item] = slot.jobs.splice(at, 1);
    if (slot.jobs.length === 0) slot.handle.unref();
    if (msg.error) {
      // A file of decodePcoMany's that fails ends its message: the ones before it were decoded.
      this.#failed++;
      this.#completed += Math.min(msg.error.jobIndex ?? 0, item.files - 1);
      item.reject(answered(toError(msg.error)));
    } else if (msg.results) {
      const failedAt = msg.results.findIndex((r) => r.error);
      const failures = msg.results.filter((r) => r.error).length;
      this.#completed += msg.results.length - failures;
      this.#failed += failures;
      if (failedAt < 0) {
        item.resolve(msg.results.map((r) => r.result));
      } else {
        const err = answered(toError(msg.results[failedAt].error));
        err.jobIndex = failedAt;
        item.reject(err);
      }
    } else {
      this.#completed += item.files;
      item.resolve(msg.result);
    }
    this.#dispatch();
  }

  // A worker died (uncaught error, exit), or was stopped under an aborted job: the job it was running
  // fails (with `err`); the ones posted behind it go back to the front of the queue; a fresh worker
  // takes its place.
  #crash(slot, err) {
    if (slot.dead || this.#terminated) return;
    slot.dead = true;
    const [running, ...waiting] = slot.jobs.splice(0);
    if (running) {
      this.#failed++;
      running.reject(err);
    }
    // Jobs posted behind it go again, from fresh copies; one whose caller's buffers were moved
    // into that worker (options.transfer) cannot, and fails too.
    const again = [];
    for (const job of waiting) {
      if (job.transfer.length > 0 && job.again === null) {
        this.#failed++;
        job.reject(new NumdecodeError(`numdecode worker pool: the worker holding this job's moved input was stopped (${err?.message ?? err})`, { code: CODES.ABORTED, cause: err }));
        continue;
      }
      if (job.transfer.length > 0) Object.assign(job, job.again());
      again.push(job);
    }
    this.#queue.unshift(...again);
    this.#dispatch();
    slot.handle.terminate();
    const index = this.#slots.indexOf(slot);
    if (index < 0) return;
    this.#startWorker().then(
      (fresh) => {
        if (this.#terminated) return fresh.handle.terminate();
        this.#slots[index] = fresh;
        this.#dispatch();
      },
      (startErr) => {
        // No replacement: fail the queue if no worker is left.
        if (this.#slots.every((s) => s.dead)) {
          for (const item of this.#queue.splice(0)) item.reject(startErr);
        }
      },
    );
  }
}

/**
 * Starts a pool of workers, each with numdecode loaded (init(options.init)).
 * @param {{size?: number, init?: import('../wasm/load.js').InitOptions}} [options]
 *   size: number of workers (default: the number of CPU cores)
 */
export async function createWorkerPool(options = {}) {
  const size = options?.size ?? (await defaultSize());
  if (!Number.isInteger(size) || size < 1) {
    throw new TypeError(`numdecode worker pool: size must be a positive integer, got ${String(size)}`);
  }
  const pool = new WorkerPool(options?.init);
  await pool._start(size);
  return pool;
}
