// Reading many small local files on a thread of their own while the calling thread decodes them
// (Node). A Zarr read from a folder opens, reads and closes a file per chunk: on this VM's slow
// system calls about 35 µs a file, a third of a t2m read of the big store on the calling thread
// (~70 ms of 1 900 files) where the decoder alone reads from memory. One reader thread per
// process fills two shared slots in turn with the next files, in the caller's order; the caller
// takes each file's bytes as a view of a slot (valid until its next call) and waits, blocked,
// only when the reader is behind. Used by a Zarr read from a LocalStore (js/zarr/fetch.js).
import { CODES, NumdecodeError } from '../errors.js';
import { CANCEL, FINISHED, MISSING, WAIT_MS, YOURSELF } from './read-ahead-protocol.js';

const SLOT_BYTES = 512 * 1024; // two of them: 1 MiB of working memory while a read runs
const SLOT_FILES = 256;
const WINDOW_FILES = 4096; // a job's files: keys are listed a window at a time, never all at once
const MAX_WAIT_MS = 60_000; // a reader silent this long has died: fail rather than hang
/** Fewer files than this are read on the calling thread: their system calls cost less (~10 ms
 * here) than the reader thread's memory is worth. */
export const READ_AHEAD_MIN_FILES = 256;
// A reader thread holds about 10 MB (a V8 isolate): it stops this long after its last read.
const IDLE_MS = 2000;

let reader = null; // {worker, busy, spare: shared buffers of a finished job, or null, idle: timer}

function theReader() {
  if (reader) return reader;
  const threads = globalThis.process?.getBuiltinModule?.('node:worker_threads');
  if (!threads?.Worker || typeof SharedArrayBuffer !== 'function') return null;
  // Not new URL('./read-ahead-thread.js', import.meta.url) written out: bundlers would copy the file
  // for this Node-only code (see js/worker/index.js).
  const here = import.meta.url;
  let worker;
  try {
    // No Node flags: the reader needs none, and some refuse a worker (--expose-gc, --input-type).
    worker = new threads.Worker(new URL('./read-ahead-thread.js', here), { execArgv: [] });
  } catch {
    return null; // read on the calling thread, as without a reader
  }
  worker.unref(); // an idle reader does not keep Node running
  const mine = { worker, busy: false, spare: null, idle: null };
  const gone = () => {
    if (reader === mine) reader = null;
  };
  worker.on('error', gone);
  worker.on('exit', gone);
  reader = mine;
  return mine;
}

// Stops an idle reader after IDLE_MS. Out here, so that the timer's closure holds the reader
// alone: one made inside readAhead() would keep its caller's read (its output too) alive as long.
function scheduleStop(mine) {
  mine.idle = setTimeout(() => {
    if (mine.busy) return;
    if (reader === mine) reader = null;
    mine.worker.terminate();
  }, IDLE_MS);
  mine.idle.unref?.();
}

function sharedState(spare) {
  if (spare) {
    new Int32Array(spare.control).fill(0);
    return spare;
  }
  return {
    control: new SharedArrayBuffer(4 * 4),
    slots: [new SharedArrayBuffer(SLOT_BYTES), new SharedArrayBuffer(SLOT_BYTES)],
    metas: [new SharedArrayBuffer(8 * SLOT_FILES), new SharedArrayBuffer(8 * SLOT_FILES)],
  };
}

// Blocks until control[at] is no longer `value`; false if MAX_WAIT_MS passed first.
function waitWhile(ctl, at, value) {
  const deadline = Date.now() + MAX_WAIT_MS;
  while (Atomics.load(ctl, at) === value) {
    if (Date.now() > deadline) return false;
    Atomics.wait(ctl, at, value, WAIT_MS);
  }
  return true;
}

/**
 * Files read ahead, in the order of `keys`, or null where there is no reader thread (not Node, no
 * SharedArrayBuffer, one already busy with another read) or too few files.
 * @param {Iterator<string>} keys the keys in the order they will be asked for
 * @param {number} count how many
 * @param {(key: string) => string} fileOf a key's file path
 * @param {(key: string) => Uint8Array | undefined} readHere reads a key on the calling thread
 *   (files the reader leaves: too big for a slot, or failed; this gives the real error)
 * @returns {null | {next: (key: string) => Uint8Array | undefined, close: () => void}} next(key):
 *   the next key's bytes (a view valid until the next call), undefined when it has no file
 */
export function readAhead(keys, count, fileOf, readHere) {
  if (count < READ_AHEAD_MIN_FILES) return null;
  const mine = theReader();
  if (!mine || mine.busy) return null;
  mine.busy = true;
  clearTimeout(mine.idle);
  let job = null; // {keys, state, ctl, data, meta, slot, inSlot: files in it, pos: the next of them, taken: of keys}
  let closed = false;

  function start() {
    const list = [];
    for (let k = 0; k < WINDOW_FILES; k++) {
      const step = keys.next();
      if (step.done) break;
      list.push(step.value);
    }
    if (list.length === 0) return false;
    const state = sharedState(mine.spare);
    mine.spare = null;
    const files = list.map(fileOf); // refuses a key outside the folder before anything is read
    job = { keys: list, state, ctl: new Int32Array(state.control), data: state.slots.map((b) => new Uint8Array(b)), meta: state.metas.map((b) => new Int32Array(b)), slot: 1, inSlot: 0, pos: 0, taken: 0 };
    mine.worker.postMessage({ files, ...state });
    return true;
  }

  // The job's end: its buffers serve the next job once the reader has let go of them.
  function finish(cancel) {
    if (!job) return;
    const { ctl, state } = job;
    if (cancel) {
      Atomics.store(ctl, CANCEL, 1);
      for (const at of [0, 1]) Atomics.notify(ctl, at);
    }
    if (Atomics.load(ctl, FINISHED) === 1) mine.spare = state;
    job = null;
  }

  function close() {
    if (closed) return;
    closed = true;
    finish(true);
    mine.busy = false;
    scheduleStop(mine);
  }

  function next(key) {
    if (closed) throw new Error('read ahead: closed');
    if (!job || (job.pos === job.inSlot && job.taken === job.keys.length)) {
      finish(false);
      if (!start()) throw new Error(`read ahead: asked for ${key} after the last file`);
    }
    if (job.pos === job.inSlot) {
      const { ctl } = job;
      if (job.taken > 0) {
        Atomics.store(ctl, job.slot, 0); // done with it: the reader may fill it again
        Atomics.notify(ctl, job.slot);
      }
      job.slot ^= 1;
      if (!waitWhile(ctl, job.slot, 0)) {
        close();
        throw new NumdecodeError(`read ahead: the file reader thread did not answer for ${MAX_WAIT_MS / 1000} s`, { code: CODES.NETWORK, file: key });
      }
      job.inSlot = Atomics.load(ctl, job.slot) - 1;
      job.pos = 0;
    }
    const expected = job.keys[job.taken];
    if (expected !== key) throw new Error(`read ahead: asked for ${key}, the next file read is ${expected}`);
    const { meta, data, slot, pos } = job;
    job.pos++;
    job.taken++;
    const at = meta[slot][2 * pos];
    const length = meta[slot][2 * pos + 1];
    if (length === MISSING) return undefined;
    if (length === YOURSELF) return readHere(key);
    return data[slot].subarray(at, at + length);
  }

  return { next, close };
}
