// RangeFile: what every reader sees. One backend (local, http, blob, buffer, object) behind a
// block cache, in-flight sharing, range merging and per-call abort.
import { CODES, IoError, checkRange, truncatedError } from './errors.js';
import { mergeRanges } from './merge.js';
import { intoTarget } from './sources.js';

let fileIds = 0;

// Sources whose reads are requests (a round trip and bytes on the wire), not file system calls.
const ASKED_FOR = new Set(['http', 'object']);

export class RangeFile {
  /** ctx: { options, stats, cache } (shared by the files of a directory). */
  constructor(backend, ctx) {
    this._backend = backend;
    this._ctx = ctx;
    this._inflight = []; // { start, end, promise, controller, waiters }
    if (typeof backend.readSync === 'function') {
      // target (optional): a Uint8Array of end - start bytes that receives them (then returned).
      this.readSync = (start, end, target) => {
        const hit = this.peek(start, end);
        if (!hit) return backend.readSync(start, end, target);
        if (target === undefined) return hit;
        intoTarget(target, start, end).set(hit);
        return target;
      };
    }
  }

  get name() {
    return this._backend.name;
  }

  get kind() {
    return this._backend.kind;
  }

  get stats() {
    return this._ctx.stats;
  }

  /** A copy of the options it was opened with (defaults filled in). */
  get options() {
    return Object.freeze({ ...this._ctx.options });
  }

  /** Total bytes. */
  async size(opts = {}) {
    return this._backend.size(opts.signal);
  }

  /** Synchronous: the bytes if available without I/O (in memory, or all in the cache), else null. */
  peek(start, end) {
    checkRange(start, end);
    return this._backend.peek?.(start, end) ?? this._ctx.cache.get(this._cacheKey(), start, end);
  }

  _cacheKey() {
    return (this._key ??= `f${++fileIds}`);
  }

  /** Exactly bytes [start, end), else an IoError. Treat the result as read-only (it may be cached). */
  async read(start, end, opts = {}) {
    checkRange(start, end);
    const hit = this.peek(start, end);
    if (hit) return hit;
    const size = this._backend.sizeSync?.() ?? null;
    if (size !== null && end > size) throw truncatedError(this.name, start, end, size);
    let [s, e] = [start, end];
    const block = this._ctx.options.blockSize;
    if (block > 0 && size !== null) {
      s = Math.floor(start / block) * block;
      e = Math.min(size, Math.ceil(end / block) * block);
    } else if (ASKED_FOR.has(this.kind)) {
      const trimmed = await this._readAroundCache(start, end, opts.signal);
      if (trimmed) return trimmed;
    }
    const data = await this._fetchShared(s, e, opts.signal);
    return data.subarray(start - s, end - s);
  }

  // Over a network, bytes cached at either edge of a range are not asked for again (a Parquet
  // file's first column chunk read overlaps the 16 KiB tail read for its footer, which would
  // otherwise cross the wire twice): the request shrinks, and its answer is stitched with the
  // cached edges (a copy of the range; null when nothing at its edges is cached).
  async _readAroundCache(start, end, signal) {
    const { head, tail, first, last } = this._ctx.cache.edges(this._cacheKey(), start, end);
    if ((head === start && tail === end) || head >= tail) return null;
    const middle = await this._fetchShared(head, tail, signal);
    const out = new Uint8Array(end - start);
    if (first) out.set(first, 0);
    out.set(middle, head - start);
    if (last) out.set(last, tail - start);
    return out;
  }

  /** The whole file (one GET without Range over HTTP). */
  async readAll(opts = {}) {
    if (this._backend.readAll) {
      // One download for every caller; cancelled only when all of them have aborted (the
      // backend shares it too, so it must not carry one caller's signal).
      this._all ??= this._sharedEntry(
        (signal) => this._backend.readAll(signal),
        (entry) => {
          if (this._all === entry) this._all = null;
        },
      );
      return this._waitFor(this._all, opts.signal, 'the whole file', (data) => data);
    }
    return this.read(0, await this.size(opts), opts);
  }

  /** Several ranges, in the order given; close ones (gap option) share one request. */
  async readRanges(ranges, opts = {}) {
    if (!Array.isArray(ranges)) throw new TypeError('readRanges needs an array of [start, end] pairs');
    for (const r of ranges) {
      if (!Array.isArray(r) || r.length !== 2) throw new TypeError('readRanges needs an array of [start, end] pairs');
      checkRange(r[0], r[1]);
    }
    const out = new Array(ranges.length);
    const missing = [];
    ranges.forEach(([s, e], i) => {
      const hit = this.peek(s, e);
      if (hit) out[i] = hit;
      else missing.push(i);
    });
    const groups = mergeRanges(
      missing.map((i) => ranges[i]),
      this._ctx.options.gap,
    );
    await Promise.all(
      groups.map(async (g) => {
        const bytes = await this.read(g.start, g.end, opts);
        for (const m of g.members) {
          const [s, e] = ranges[missing[m]];
          out[missing[m]] = bytes.subarray(s - g.start, e - g.start);
        }
      }),
    );
    return out;
  }

  // Identical (or covering) requests in flight are shared; the request is cancelled only when
  // every caller waiting for it has aborted.
  _fetchShared(start, end, signal) {
    let entry = this._inflight.find((x) => x.start <= start && x.end >= end);
    if (!entry) {
      entry = this._sharedEntry(
        (controllerSignal) =>
          this._backend.fetch(start, end, controllerSignal).then((data) => {
            this._ctx.cache.put(this._cacheKey(), start, data);
            return data;
          }),
        (settled) => {
          const i = this._inflight.indexOf(settled);
          if (i >= 0) this._inflight.splice(i, 1);
        },
      );
      Object.assign(entry, { start, end });
      this._inflight.push(entry);
    }
    const offset = start - entry.start;
    return this._waitFor(entry, signal, `bytes [${start}, ${end})`, (data) => data.subarray(offset, offset + (end - start)));
  }

  // A download several callers may wait for: its own controller, aborted when its last waiter
  // has; `done(entry)` lets go of it once it has settled, or at once when it is aborted (a caller
  // arriving in the same tick as the abort must start a download of its own, not join this one).
  _sharedEntry(start, done) {
    const controller = new AbortController();
    const entry = { controller, waiters: 0, promise: start(controller.signal), done: () => done(entry) };
    entry.promise.then(entry.done, entry.done);
    return entry;
  }

  // One caller's wait for a shared download: its own abort rejects it alone.
  _waitFor(shared, signal, what, pick) {
    shared.waiters += 1;
    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = () => {
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        shared.waiters -= 1;
      };
      const onAbort = () => {
        if (settled) return;
        finish();
        if (shared.waiters === 0) {
          shared.done();
          shared.controller.abort(signal.reason);
        }
        reject(new IoError(`read of ${what} aborted (${this.name})`, { code: CODES.ABORTED, file: this.name, cause: signal.reason }));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      shared.promise.then(
        (data) => {
          if (settled) return;
          finish();
          resolve(pick(data));
        },
        (err) => {
          if (settled) return;
          finish();
          reject(err);
        },
      );
    });
  }

  /** Releases file descriptors and cached bytes. */
  close() {
    this._ctx.cache.dropFile(this._cacheKey());
    this._backend.close?.();
  }
}
