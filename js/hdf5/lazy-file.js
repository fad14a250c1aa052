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

const EIO = 29; // emscripten (WASI) errno numbering
// Small blocks: HDF5 metadata reads are a few hundred bytes to a few kilobytes, scattered.
const DEFAULT_BLOCK = 1024;
const DEFAULT_CACHE = 64 * 1024 * 1024;

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
    this.blocks = new Map(); // block number -> Uint8Array (insertion order = age)
    this.missing = new Set(); // block numbers missed by the current pass
    this.ioError = null; // a synchronous read that failed (reported instead of HDF5's message)
    this.fs = runtime.FS;
    this.path = `${DIR}/${++nextId}-${String(file.name ?? 'file').replace(/[^\w.-]/g, '_').slice(-60)}`;
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
        dst.set(this.file.readSync(position, position + dst.length));
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
      const from = b === b0 ? position - b * bs : 0;
      const n = Math.min(dst.length - at, block.length - from);
      dst.set(block.subarray(from, from + n), at);
      at += n;
    }
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
   * Fetches missing blocks: `wants` is a list of {blocks: Set, ahead: number}; each run of
   * missing blocks is extended by `ahead` blocks (read-ahead for operations that keep missing,
   * such as a long read crossing many chunks) and runs closer than `gapBlocks` are merged.
   */
  async fetchMissing(wants, gapBlocks = 1) {
    const maxBlock = Math.ceil(this.size / this.blockSize) - 1;
    const spans = [];
    for (const { blocks, ahead } of wants) {
      for (const b of blocks) spans.push([b, Math.min(maxBlock, b + ahead)]);
    }
    spans.sort((a, b) => a[0] - b[0]);
    const runs = [];
    for (const [s, e] of spans) {
      const last = runs[runs.length - 1];
      if (last && s - last[1] <= gapBlocks + 1) last[1] = Math.max(last[1], e);
      else runs.push([s, e]);
    }
    await this.fetchBlocks(runs);
    this._evict();
  }

  /** Fetches block runs [[first, last], ...] (inclusive) not yet cached. */
  async fetchBlocks(runs) {
    const bs = this.blockSize;
    const ranges = [];
    for (const [b0, b1] of runs) {
      let s = b0;
      while (s <= b1) {
        while (s <= b1 && this.blocks.has(s)) s++;
        if (s > b1) break;
        let e = s;
        while (e + 1 <= b1 && !this.blocks.has(e + 1)) e++;
        ranges.push([s, e]);
        s = e + 1;
      }
    }
    if (ranges.length === 0) return;
    const byteRanges = ranges.map(([s, e]) => [s * bs, Math.min(this.size, (e + 1) * bs)]);
    const parts = await this.file.readRanges(byteRanges);
    ranges.forEach(([s, e], i) => {
      const bytes = parts[i];
      if (bytes.length !== byteRanges[i][1] - byteRanges[i][0]) {
        throw new Hdf5Error(`${this.file.name}: got ${bytes.length} bytes for range [${byteRanges[i]}]`, { file: this.file.name });
      }
      for (let b = s; b <= e; b++) this.blocks.set(b, bytes.subarray((b - s) * bs, Math.min(bytes.length, (b - s + 1) * bs)));
    });
  }

  /** Fetches bytes [start, end) into the cache (whole blocks). */
  async prefetch(start, end) {
    if (this.sync || end <= start) return;
    const bs = this.blockSize;
    await this.fetchBlocks([[Math.floor(start / bs), Math.floor((Math.min(end, this.size) - 1) / bs)]]);
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

  // Oldest blocks go first when the cache is over budget (only between passes).
  _evict() {
    let total = this.blocks.size * this.blockSize;
    for (const b of this.blocks.keys()) {
      if (total <= this.cacheBytes) break;
      this.blocks.delete(b);
      total -= this.blockSize;
    }
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
