// A byte-bounded LRU of fetched ranges, shared by the files of a handle. Entries are the exact
// ranges fetched (or whole blocks with blockSize), so caching never widens a request by itself.
// Per file the entries are kept sorted by start, so a lookup (peek() is called often and
// synchronously by the HDF5 reader) is a binary search, not a scan of the whole cache.

const BACK = 16; // entries looked at before the insertion point for one that covers a range

export class RangeCache {
  constructor(maxBytes) {
    this.maxBytes = maxBytes;
    this.bytes = 0;
    this.lru = new Map(); // key -> entry; Map order = least recently used first
    this.files = new Map(); // file -> entries sorted by start
  }

  put(file, start, data) {
    if (this.maxBytes <= 0 || data.length === 0 || data.length > this.maxBytes) return;
    const key = `${file}\u0000${start}\u0000${data.length}`;
    if (this.lru.has(key)) {
      this._touch(key);
      return;
    }
    const entry = { key, file, start, end: start + data.length, data };
    this.lru.set(key, entry);
    let list = this.files.get(file);
    if (!list) this.files.set(file, (list = []));
    list.splice(upperBound(list, start), 0, entry);
    this.bytes += data.length;
    for (const old of this.lru.values()) {
      if (this.bytes <= this.maxBytes) break;
      this._remove(old);
    }
  }

  _remove(entry) {
    this.lru.delete(entry.key);
    this.bytes -= entry.data.length;
    const list = this.files.get(entry.file);
    let i = upperBound(list, entry.start) - 1;
    while (i >= 0 && list[i] !== entry) i--;
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.files.delete(entry.file);
  }

  _touch(key) {
    const e = this.lru.get(key);
    this.lru.delete(key);
    this.lru.set(key, e);
  }

  /** Bytes [start, end) of `file` if cached ranges cover them all, else null. */
  get(file, start, end) {
    if (end === start) return new Uint8Array(0);
    const list = this.files.get(file);
    if (!list) return null;
    const i = upperBound(list, start) - 1; // last entry starting at or before `start`
    let best = null;
    for (let k = i; k >= 0 && k > i - BACK; k--) {
      const e = list[k];
      if (e.end >= end) {
        this._touch(e.key);
        return e.data.subarray(start - e.start, end - e.start);
      }
      if (e.end > start && (!best || e.end > best.end)) best = e;
    }
    if (!best) return null;
    // Several entries may cover it together: extend from `best` with entries starting in reach.
    const used = [best];
    let at = best.end;
    let j = i + 1;
    while (at < end) {
      let next = null;
      for (; j < list.length && list[j].start <= at; j++) if (!next || list[j].end > next.end) next = list[j];
      if (!next || next.end <= at) return null;
      used.push(next);
      at = next.end;
    }
    const out = new Uint8Array(end - start);
    let from = start;
    for (const e of used) {
      const to = Math.min(e.end, end);
      if (to > from) out.set(e.data.subarray(from - e.start, to - e.start), from - start);
      from = Math.max(from, to);
      this._touch(e.key);
    }
    return out;
  }

  /**
   * The cached bytes at the edges of [start, end), each from one entry: [start, head) and
   * [tail, end) are cached (head = start, tail = end where nothing is), as views.
   * @returns {{head: number, tail: number, first: Uint8Array | null, last: Uint8Array | null}}
   */
  edges(file, start, end) {
    const list = this.files.get(file);
    let first = null;
    let last = null;
    let head = start;
    let tail = end;
    if (list) {
      const i = upperBound(list, start) - 1; // entries from here back start at or before `start`
      for (let k = i; k >= 0 && k > i - BACK; k--) {
        const e = list[k];
        if (e.end > head) [head, first] = [Math.min(end, e.end), e];
      }
      // entries starting inside (start, end) that reach `end`
      for (let k = upperBound(list, end - 1) - 1, n = 0; k > i && n < BACK; k--, n++) {
        const e = list[k];
        if (e.end >= end && e.start < tail) [tail, last] = [e.start, e];
      }
    }
    return {
      head,
      tail,
      first: first && first.data.subarray(start - first.start, head - first.start),
      last: last && last.data.subarray(tail - last.start, end - last.start),
    };
  }

  dropFile(file) {
    for (const e of this.files.get(file) ?? []) {
      this.lru.delete(e.key);
      this.bytes -= e.data.length;
    }
    this.files.delete(file);
  }

  clear() {
    this.lru.clear();
    this.files.clear();
    this.bytes = 0;
  }
}

// Index of the first entry whose start is > `start`.
function upperBound(list, start) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].start <= start) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
