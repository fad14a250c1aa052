// A byte-bounded LRU of fetched ranges, shared by the files of a handle. Entries are the exact
// ranges fetched (or whole blocks with blockSize), so caching never widens a request by itself.

export class RangeCache {
  constructor(maxBytes) {
    this.maxBytes = maxBytes;
    this.bytes = 0;
    this.entries = new Map(); // key -> { file, start, data }; Map order = least recently used first
  }

  put(file, start, data) {
    if (this.maxBytes <= 0 || data.length === 0 || data.length > this.maxBytes) return;
    const key = `${file}\u0000${start}\u0000${data.length}`;
    if (this.entries.has(key)) {
      this._touch(key);
      return;
    }
    this.entries.set(key, { file, start, data });
    this.bytes += data.length;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= e.data.length;
    }
  }

  _touch(key) {
    const e = this.entries.get(key);
    this.entries.delete(key);
    this.entries.set(key, e);
  }

  /** Bytes [start, end) of `file` if cached ranges cover them all, else null. */
  get(file, start, end) {
    if (end === start) return new Uint8Array(0);
    const parts = [];
    for (const [key, e] of this.entries) {
      if (e.file !== file) continue;
      const eEnd = e.start + e.data.length;
      if (e.start <= start && eEnd >= end) {
        this._touch(key);
        return e.data.subarray(start - e.start, end - e.start);
      }
      if (e.start < end && eEnd > start) parts.push([key, e]);
    }
    if (parts.length < 2) return null;
    // Several entries may cover it together.
    parts.sort((a, b) => a[1].start - b[1].start);
    let at = start;
    const used = [];
    for (const [key, e] of parts) {
      if (e.start > at) break;
      const eEnd = e.start + e.data.length;
      if (eEnd <= at) continue;
      used.push([key, e, at, Math.min(eEnd, end)]);
      at = Math.min(eEnd, end);
      if (at === end) break;
    }
    if (at !== end) return null;
    const out = new Uint8Array(end - start);
    for (const [key, e, a, b] of used) {
      out.set(e.data.subarray(a - e.start, b - e.start), a - start);
      this._touch(key);
    }
    return out;
  }

  dropFile(file) {
    for (const [k, e] of this.entries) {
      if (e.file === file) {
        this.entries.delete(k);
        this.bytes -= e.data.length;
      }
    }
  }

  clear() {
    this.entries.clear();
    this.bytes = 0;
  }
}
