// How jobs become messages to a worker: their arguments copied or moved, many small items grouped
// into batches, decodePcoMany's files packed back to back into buffers that are used again, and
// one call's many messages settled together.

// Prepares a job's arguments for postMessage. Typed arrays among them (top level, and one level
// into arrays) are either moved (transfer: their whole ArrayBuffers detach here) or copied here,
// only the bytes they view, with the copies moved: one copy, where structured cloning would copy
// the whole underlying buffer (a chunk viewed inside a shard, say) twice.
export function prepareArgs(args, transfer) {
  const moved = new Set();
  const prepare = (value) => {
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
      if (transfer) {
        if (value.buffer instanceof ArrayBuffer) moved.add(value.buffer);
        return value;
      }
      // new + set, not slice() (slow on views of wasm memory); Node's Buffer must not be
      // constructed with new, so it is copied as the Uint8Array it is.
      const Type = typeof globalThis.Buffer === 'function' && value instanceof globalThis.Buffer ? Uint8Array : value.constructor;
      const copy = new Type(value.length);
      copy.set(value);
      moved.add(copy.buffer);
      return copy;
    }
    if (transfer && value instanceof ArrayBuffer) moved.add(value);
    return value;
  };
  const prepared = args.map((a) => (Array.isArray(a) ? a.map(prepare) : prepare(a)));
  return { args: prepared, transfer: [...moved] };
}

// Groups consecutive items (by byte size) into batches of about total / (4 * workers) bytes,
// at most 256 items each; an item at least that large is a batch of its own.
export function planBatches(sizes, workers) {
  const total = sizes.reduce((a, b) => a + b, 0);
  const target = Math.max(1, Math.ceil(total / (4 * workers)));
  const batches = [];
  let current = [];
  let bytes = 0;
  sizes.forEach((size, i) => {
    if (current.length && (bytes + size > target || current.length >= 256)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(i);
    bytes += size;
  });
  if (current.length) batches.push(current);
  return batches;
}

// Packing buffers decodePcoMany keeps for its next call, at most this many bytes.
const MAX_SPARE_BYTES = 16 * 1024 * 1024;

/** Buffers that carried files to the workers and came back: the next files are packed into one of
 * them rather than into fresh memory, whose first touch can cost more than the copy. */
export class SpareBuffers {
  #buffers = [];

  /** The files back to back, and where each ends. @param {Uint8Array[]} files */
  pack(files) {
    const ends = new Float64Array(files.length);
    let total = 0;
    files.forEach((f, k) => (ends[k] = total += f.byteLength));
    const at = this.#buffers.findIndex((b) => b.byteLength >= total && b.byteLength <= 2 * total + 65536);
    const buffer = at < 0 ? new ArrayBuffer(total) : this.#buffers.splice(at, 1)[0];
    const packed = new Uint8Array(buffer, 0, total);
    files.forEach((f, k) => packed.set(f, k === 0 ? 0 : ends[k - 1]));
    return { packed, ends };
  }

  /** @param {ArrayBuffer} buffer back from a worker */
  keep(buffer) {
    this.#buffers.push(buffer);
    let kept = this.#buffers.reduce((n, b) => n + b.byteLength, 0);
    while (kept > MAX_SPARE_BYTES) kept -= this.#buffers.shift().byteLength;
  }
}

// Errors a worker answered a job with (made afresh for each answer), as opposed to the pool's own
// (a worker that died, none that could start: one error may reject many jobs).
const answeredErrors = new WeakSet();

/** Marks `err` as a worker's answer to one job (see withFileIndex). */
export function answered(err) {
  answeredErrors.add(err);
  return err;
}

/**
 * `err` with jobIndex turned into the index in a call's files: from its index in the batch
 * `indexes` of the failed message, or, for a file sent alone, that file's when the worker
 * answered its job with the error. The pool's own errors get none.
 */
export function withFileIndex(err, indexes) {
  if (!answeredErrors.has(err)) return err;
  if (err.jobIndex !== undefined) err.jobIndex = indexes[err.jobIndex];
  else if (indexes.length === 1) err.jobIndex = indexes[0];
  return err;
}

// What a message dropped unsent (its call has failed) rejects with; settleCall never reports it.
export const DROPPED = Symbol('dropped');

// Waits for every promise of one call; the first failure calls onFailure once (which drops the
// call's messages still queued). Resolves to the values in order, or rejects with the failure of
// the lowest index.
export async function settleCall(promises, onFailure) {
  let failed = false;
  const watched = promises.map((p) =>
    p.catch((err) => {
      if (!failed) {
        failed = true;
        onFailure();
      }
      throw err;
    }),
  );
  const outcomes = await Promise.allSettled(watched);
  const failure = outcomes.find((o) => o.status === 'rejected' && o.reason !== DROPPED);
  if (failure) throw failure.reason;
  return outcomes.map((o) => o.value);
}
