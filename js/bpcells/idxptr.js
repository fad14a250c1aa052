// idxptr, the matrix's offset table (one entry per storage-axis position, plus one), read in
// blocks of IDXPTR_BLOCK entries that stay cached: a column read fetches the block holding it (one
// small range), neighbouring columns then cost nothing, and a matrix with millions of columns
// never loads its whole idxptr. Small files are one block.
import { BpcellsError } from '../errors.js';
import { ArrayFile, HEADER, checkHeader } from './array-file.js';
import { checkMonotone, u32ToNumbers, u64ToNumbers } from './numbers.js';

const IDXPTR_BLOCK = 512;

export class IdxptrReader {
  /** type: 'u32' (format 1) or 'u64'. */
  constructor(source, type) {
    this.file = new ArrayFile(source, 'idxptr', type);
    this.blocks = new Map(); // block number -> Promise<Float64Array>
  }

  _convert(bytes, first) {
    const ptr = this.file.type === 'u64' ? u64ToNumbers(bytes, this.file.label, first) : u32ToNumbers(bytes);
    checkMonotone(ptr, first, this.file.label);
    return ptr;
  }

  /**
   * Header, size and the first block in one request (its length comes from `shape`); `whole`: all
   * entries in that request instead (a later column read then asks for none). Otherwise the block
   * holding the last entry (the matrix's nnz) is fetched at the same time, on the guess that the
   * file holds `expectedCount` entries; a wrong guess costs that read only (checked after).
   */
  async open(expectedCount, whole = false) {
    const f = this.file;
    const firstEntries = Math.max(1, whole ? expectedCount : Math.min(expectedCount, IDXPTR_BLOCK));
    const lastBlock = Math.floor((expectedCount - 1) / IDXPTR_BLOCK);
    const tailStart = lastBlock * IDXPTR_BLOCK;
    const tail =
      tailStart >= firstEntries
        ? f.source.read('idxptr', HEADER + tailStart * f.elem, HEADER + expectedCount * f.elem).catch(() => null)
        : null;
    const head = await f.source.read('idxptr', 0, HEADER + firstEntries * f.elem);
    checkHeader(head, f.type, f.label);
    f.setSize(await f.source.size('idxptr'));
    if (f.count === 0) throw new BpcellsError(`${f.label}: empty, needs at least one entry`, { file: f.label });
    const first = this._convert(head.subarray(HEADER), 0);
    if (first[0] !== 0) throw new BpcellsError(`${f.label}: first entry is ${first[0]}, not 0`, { file: f.label });
    // Whole blocks of what was read, and the last block when the read reached the end of the file.
    const held = Math.min(first.length, f.count);
    for (let b = 0; b * IDXPTR_BLOCK < held; b++) {
      const end = Math.min((b + 1) * IDXPTR_BLOCK, f.count);
      if (end <= held) this.blocks.set(b, Promise.resolve(first.subarray(b * IDXPTR_BLOCK, end)));
    }
    const tailBytes = await tail;
    if (tailBytes && f.count === expectedCount) {
      const p = Promise.resolve(tailBytes).then((bytes) => this._convert(bytes, tailStart));
      this.blocks.set(lastBlock, p);
      p.catch(() => this.blocks.delete(lastBlock));
    }
  }

  _block(b) {
    if (!this.blocks.has(b)) {
      const i0 = b * IDXPTR_BLOCK;
      const i1 = Math.min(this.file.count, i0 + IDXPTR_BLOCK);
      const p = this.file.slice(i0, i1).then((bytes) => this._convert(bytes, i0));
      this.blocks.set(b, p);
      p.catch(() => this.blocks.delete(b));
    }
    return this.blocks.get(b);
  }

  /**
   * Entries [a, b) as numbers, checked to be non-decreasing together with the entries either side
   * of them: an entry raised at the end of a block (or lowered at its start) is only seen against
   * the next (previous) block, and would otherwise hand a column its neighbours' entries. Missing
   * neighbouring blocks are fetched as one range.
   */
  async get(a, b) {
    if (b === a) return new Float64Array(0);
    const from = Math.max(0, a - 1);
    return (await this._entries(from, Math.min(this.file.count, b + 1))).subarray(a - from, b - from);
  }

  /** Entry i alone (the last one is the matrix's nnz). */
  async at(i) {
    return (await this._entries(i, i + 1))[0];
  }

  // Entries [from, to), checked to be non-decreasing.
  async _entries(from, to) {
    const out = new Float64Array(to - from);
    const b0 = Math.floor(from / IDXPTR_BLOCK);
    const b1 = Math.floor((to - 1) / IDXPTR_BLOCK);
    for (let k = b0; k <= b1; ) {
      if (this.blocks.has(k)) {
        k++;
        continue;
      }
      let e = k;
      while (e + 1 <= b1 && !this.blocks.has(e + 1)) e++;
      const i0 = k * IDXPTR_BLOCK;
      const i1 = Math.min(this.file.count, (e + 1) * IDXPTR_BLOCK);
      const run = this.file.slice(i0, i1).then((bytes) => this._convert(bytes, i0));
      for (let x = k; x <= e; x++) {
        const off = (x - k) * IDXPTR_BLOCK;
        const p = run.then((all) => all.subarray(off, Math.min(all.length, off + IDXPTR_BLOCK)));
        this.blocks.set(x, p);
        p.catch(() => this.blocks.delete(x));
      }
      k = e + 1;
    }
    for (let k = b0; k <= b1; k++) {
      const block = await this._block(k);
      const i0 = k * IDXPTR_BLOCK;
      const lo = Math.max(from, i0);
      const hi = Math.min(to, i0 + block.length);
      out.set(block.subarray(lo - i0, hi - i0), lo - from);
    }
    checkMonotone(out, from, this.file.label);
    return out;
  }
}
