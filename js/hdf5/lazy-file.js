// The bytes of one HDF5 file as a file node in h5wasm's in-memory file system, read lazily.
//
// HDF5 reads synchronously (pread from C), so the node's read() must answer at once:
//   - files with real synchronous reads (Node paths, buffers, a Blob inside a Worker) are read
//     directly, exactly the bytes HDF5 asks for;
//   - the others (HTTP, a Blob on a browser main thread, user objects) are served from a block
//     cache. A read that needs a block not yet cached fails (EIO) and its blocks are recorded as
//     missing; the operation fails, its result is thrown away, the missing blocks are fetched
//     (merged into few ranges) and the operation runs again (see handle.js). HDF5 thus
//     only ever sees bytes of the file: answering misses with zeros instead would let one pass
//     find more misses, but HDF5 can loop forever on zero-filled metadata (a global heap did).
import { Hdf5Error } from '../errors.js';
import { defaultConcurrency } from '../io/options.js';

const EIO = 29; // emscripten (WASI) errno numbering
// Small blocks: HDF5 metadata reads are a few hundred bytes to a few kilobytes, scattered.
const DEFAULT_BLOCK = 1024;
const DEFAULT_CACHE = 64 * 1024 * 1024;
// Runs of missing blocks at most this far apart are fetched as one range when a batch holds more
// ranges than the origin answers at once (js/io's concurrency: 6 in browsers): a round trip costs more.
const MERGE_GAP = 64 * 1024;

let nextId = 0;
const DIR = '/numdecode-hdf5'; // where the file nodes live in h5wasm's file system

export class LazyHdf5File {
  /**
   * @param runtime the loaded h5wasm runtime (its FS)
   * @param file a js/io RangeFile (its own cache off: this one keeps the blocks)
   * @param size the file's size in bytes
   */
  constructor(runtime, file, size, options = {}) {
    this.file = file;
    this.size = size;
    this.blockSize = options.blockSize ?? DEFAULT_BLOCK;
    this.cacheBytes = options.cacheBytes ?? DEFAULT_CACHE;
    this.sync = typeof file.readSync === 'function';
    this.concurrency = options.concurrency ?? defaultConcurrency(); // requests in flight per origin (js/io's option)
    this.onRead = null; // (position, bytes): every read HDF5 made from the cache (chunk-index.js)
    this.blocks = new Map(); // block number -> Uint8Array (insertion order = age)
    this.missing = new Set(); // block numbers missed by the current pass
    // Blocks the operations in progress have read or fetched: never evicted under them, or an
    // operation needing more than cacheBytes would lose its own blocks between passes and miss
    // them again, pass after pass. settle() lets them go once no operation is left.
    this.inUse = new Set();
    this.ioError = null; // a synchronous read that failed (reported instead of HDF5's message)
    this.fs = runtime.FS;
    this.path = this._newPath();
    this._createNode();
  }

  _newPath() {
    return `${DIR}/${++nextId}-${String(this.file.name ?? 'file').replace(/[^\w.-]/g, '_').slice(-60)}`;
  }

  /** The same file as a node of another h5wasm runtime's file system (a fresh one after a trap). */
  moveTo(runtime) {
    try {
      this.fs.unlink(this.path);
    } catch {
      // already gone
    }
    this.fs = runtime.FS;
    this.path = this._newPath();
    this._createNode();
  }

  _createNode() {
    const FS = this.fs;
    try {
      FS.mkdir(DIR);
    } catch {
      // exists
    }
    const node = FS.createFile(DIR, this.path.slice(DIR.length + 1), {}, true, false);
    const size = this.size;
    // MEMFS reports usedBytes as the file size (fstat: HDF5 compares it with the superblock's EOF).
    Object.defineProperty(node, 'usedBytes', { get: () => size });
    const ops = { ...node.stream_ops };
    ops.read = (stream, buffer, offset, length, position) => {
      if (position >= size || length <= 0) return 0;
      const n = Math.min(length, size - position);
      const dst = new Uint8Array(buffer.buffer, buffer.byteOffset + offset, n);
      this._fill(dst, position);
      return n;
    };
    ops.write = () => {
      throw new FS.ErrnoError(EIO);
    };
    node.stream_ops = ops;
    this.node = node;
  }

  _fill(dst, position) {
    const FS = this.fs;
    if (this.sync) {
      try {
        this.file.readSync(position, position + dst.length, dst); // straight into HDF5's buffer: no array per read
      } catch (err) {
        this.ioError ??= err;
        throw new FS.ErrnoError(EIO);
      }
      return;
    }
    const bs = this.blockSize;
    const b0 = Math.floor(position / bs);
    const b1 = Math.floor((position + dst.length - 1) / bs);
    let complete = true;
    for (let b = b0; b <= b1; b++) {
      if (!this.blocks.has(b)) {
        this.missing.add(b);
        complete = false;
      }
    }
    if (!complete) {
      this.missedBytes = Math.max(this.missedBytes, dst.length);
      throw new FS.ErrnoError(EIO);
    }
    let at = 0;
    for (let b = b0; b <= b1; b++) {
      const block = this.blocks.get(b);
      this.inUse.add(b);
      const from = b === b0 ? position - b * bs : 0;
      const n = Math.min(dst.length - at, block.length - from);
      dst.set(block.subarray(from, from + n), at);
      at += n;
    }
    this.onRead?.(position, dst);
  }

  /** Starts one pass of an operation. */
  beginPass() {
    this.missing = new Set();
    this.missedBytes = 0; // the largest read that missed (raw-data chunks are the large ones)
    this.ioError = null;
  }

  /** True when the pass read bytes it did not have (its result must be discarded). */
  get missed() {
    return this.missing.size > 0;
  }

  /**
   * Fetches missing blocks in one batch of concurrent ranges: `wants`: [{blocks: Set, ahead}] (each
   * block extended by `ahead` blocks), `extra`: planned byte ranges [start, end). Runs closer than
   * `gapBlocks` are merged, and the closest (up to MERGE_GAP apart) while there are more runs than
   * `concurrency`.
   */
  async fetchMissing(wants, extra = [], gapBlocks = 1) {
    const bs = this.blockSize;
    const maxBlock = Math.ceil(this.size / bs) - 1;
    const want = new Set();
    const add = (b0, b1) => {
      for (let b = b0; b <= Math.min(maxBlock, b1); b++) if (!this.blocks.has(b)) want.add(b);
    };
    for (const { blocks, ahead } of wants) for (const b of blocks) add(b, b + ahead);
    for (const [s, e] of extra) if (e > s) add(Math.floor(s / bs), Math.floor((Math.min(e, this.size) - 1) / bs));
    const sorted = [...want].sort((a, b) => a - b);
    const runs = [];
    for (const b of sorted) {
      const last = runs[runs.length - 1];
      if (last && b - last[1] <= gapBlocks + 1) last[1] = b;
      else runs.push([b, b]);
    }
    const maxGap = Math.ceil(MERGE_GAP / bs);
    while (runs.length > this.concurrency) {
      let best = -1;
      for (let i = 0; i + 1 < runs.length; i++) {
        if (best < 0 || runs[i + 1][0] - runs[i][1] < runs[best + 1][0] - runs[best][1]) best = i;
      }
      if (runs[best + 1][0] - runs[best][1] - 1 > maxGap) break;
      runs.splice(best, 2, [runs[best][0], runs[best + 1][1]]);
    }
    await this._fetchRuns(runs);
    this._evict();
  }

  // Fetches block runs [[first, last], ...] (inclusive), one request each (cached blocks inside a
  // run are fetched again: the same bytes).
  async _fetchRuns(runs) {
    if (runs.length === 0) return;
    const bs = this.blockSize;
    const byteRanges = runs.map(([s, e]) => [s * bs, Math.min(this.size, (e + 1) * bs)]);
    const parts = await this.file.readRanges(byteRanges);
    runs.forEach(([s, e], i) => {
      const bytes = parts[i];
      if (bytes.length !== byteRanges[i][1] - byteRanges[i][0]) {
        throw new Hdf5Error(`${this.file.name}: got ${bytes.length} bytes for range [${byteRanges[i]}]`, { file: this.file.name });
      }
      for (let b = s; b <= e; b++) {
        this.blocks.set(b, bytes.subarray((b - s) * bs, Math.min(bytes.length, (b - s + 1) * bs)));
        this.inUse.add(b);
      }
    });
  }

  /** Whether every block holding bytes [start, end) is cached. */
  has(start, end) {
    const bs = this.blockSize;
    for (let b = Math.floor(start / bs); b <= Math.floor((end - 1) / bs); b++) if (!this.blocks.has(b)) return false;
    return true;
  }

  /** Bytes [start, end) when every block holding them is cached (a copy), else null. */
  peek(start, end) {
    if (this.sync) return null;
    const bs = this.blockSize;
    if (start < 0 || end > this.size || end <= start) return null;
    // Checked before allocating: a read plan asks for nodes not fetched yet once per chunk under them.
    if (!this.has(start, end)) return null;
    const out = new Uint8Array(end - start);
    let at = 0;
    for (let b = Math.floor(start / bs); at < out.length; b++) {
      const block = this.blocks.get(b);
      if (!block) return null;
      const from = at === 0 ? start - b * bs : 0;
      const n = Math.min(out.length - at, block.length - from);
      out.set(block.subarray(from, from + n), at);
      at += n;
    }
    return out;
  }

  /** Fetches bytes [start, end) into the cache (whole blocks). */
  async prefetch(start, end) {
    if (this.sync || end <= start) return;
    await this.fetchMissing([], [[start, end]]);
  }

  /** Puts bytes already read (starting at `start`, block-aligned) into the cache: whole blocks only. */
  seed(start, bytes) {
    if (this.sync) return;
    const bs = this.blockSize;
    if (start % bs !== 0) return;
    for (let at = 0; at < bytes.length; at += bs) {
      const end = Math.min(bytes.length, at + bs);
      if (end - at === bs || start + end === this.size) this.blocks.set((start + at) / bs, bytes.subarray(at, end));
    }
  }

  // Oldest blocks go first when the cache is over budget (only between passes), except the blocks
  // of operations in progress: the cache may hold more than cacheBytes while one needs more.
  _evict() {
    let total = this.blocks.size * this.blockSize;
    for (const b of this.blocks.keys()) {
      if (total <= this.cacheBytes) break;
      if (this.inUse.has(b)) continue;
      this.blocks.delete(b);
      total -= this.blockSize;
    }
  }

  /** No operation is in progress: their blocks may be evicted now, down to cacheBytes. */
  settle() {
    this.inUse.clear();
    this._evict();
  }

  close() {
    try {
      this.fs.unlink(this.path);
    } catch {
      // already gone
    }
    this.blocks.clear();
    this.file.close?.();
  }
}
