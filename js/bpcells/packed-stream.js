// A packed (BP-128) stream of a matrix: index (d1z, with per-chunk starts) or val (m1), stored as
// <prefix>_data (the packed words), <prefix>_idx (each 128-value chunk's first word),
// <prefix>_starts (d1z: each chunk's first value) and, from format 2, <prefix>_idx_offsets (where
// the u32 word offsets of _idx pass 2^32). Opening checks how the tables fit together; fetch()
// gets and checks what a range of values needs; chunk-decoder.js decodes it (src/bpcells/bp128.cpp).
import { BpcellsError } from '../errors.js';
import { ArrayFile, HEADER, labelOf } from './array-file.js';
import { CHUNK, VARIANT, inputBuffer } from './chunk-decoder.js';
import { LITTLE_ENDIAN, checkMonotone, u32ToNumbers, u64ToNumbers } from './numbers.js';

const TWO32 = 2 ** 32;

/** A BP-128 stream (index: d1z with starts, val: m1) and its files. */
export class PackedStream {
  constructor(source, prefix, variant, format) {
    this.prefix = prefix;
    this.label = labelOf(source, prefix); // what decode errors call the stream ("/mat/index" in HDF5)
    this.variant = variant;
    this.data = new ArrayFile(source, `${prefix}_data`, 'u32');
    this.idx = new ArrayFile(source, `${prefix}_idx`, 'u32');
    this.starts = variant === VARIANT.d1z || variant === VARIANT.d1 ? new ArrayFile(source, `${prefix}_starts`, 'u32') : null;
    this.offsetsFile = format >= 2 ? new ArrayFile(source, `${prefix}_idx_offsets`, 'u64') : null;
    this.offsets = [0, Infinity]; // v1: no file, everything in segment 0
    this.abs = null; // absolute word offsets (Uint32Array or Float64Array) when the idx table is held whole
    this.resident = null; // {w0, w1, input}: words [w0, w1) kept in wasm memory (a wasmInput)
  }

  /** First round of open(): the data file's header and size, and the small *_idx_offsets whole. */
  async openSmall() {
    const jobs = [this.data.probe()];
    if (this.offsetsFile) jobs.push(this.offsetsFile.load());
    await Promise.all(jobs);
    if (this.offsetsFile) {
      const o = u64ToNumbers(this.offsetsFile.payload, this.offsetsFile.label);
      const name = this.offsetsFile.label;
      if (o.length < 2) throw new BpcellsError(`${name}: ${o.length} entries, need at least 2 (start and end)`, { file: name });
      if (o[0] !== 0) throw new BpcellsError(`${name}: first entry is ${o[0]}, not 0`, { file: name });
      for (let k = 1; k < o.length; k++) {
        if (o[k] < o[k - 1]) throw new BpcellsError(`${name}: entries decrease at position ${k}`, { file: name });
      }
      this.offsets = Array.from(o);
    }
  }

  /** Bytes of the seek tables (*_idx, and *_starts with `withStarts`) for `nchunks` chunks: what loading them whole costs. */
  tableBytes(nchunks, withStarts = true) {
    return HEADER + 4 * (nchunks + 1) + (this.starts && withStarts ? HEADER + 4 * nchunks : 0);
  }

  /**
   * Second round: the seek tables, held whole (`whole`: *_idx, checked against the data now;
   * `wholeStarts`: *_starts too) or probed.
   */
  async openTables(nchunks, whole, wholeStarts = whole) {
    await Promise.all([whole ? this.idx.load() : this.idx.probe(), this.starts && (wholeStarts ? this.starts.load() : this.starts.probe())]);
    if (this.idx.count !== nchunks + 1) {
      throw new BpcellsError(
        `${this.idx.label}: ${this.idx.count} entries, expected ${nchunks + 1} for ${nchunks} chunks of 128 values`,
        { file: this.idx.label },
      );
    }
    if (this.starts && this.starts.count !== nchunks) {
      throw new BpcellsError(`${this.starts.label}: ${this.starts.count} entries, expected ${nchunks} (one per chunk)`, {
        file: this.starts.label,
      });
    }
    if (this.offsets[this.offsets.length - 1] < this.idx.count) {
      throw new BpcellsError(
        `${this.offsetsFile.label}: last entry ${this.offsets[this.offsets.length - 1]} does not cover the ${this.idx.count} entries of ${this.idx.label}`,
        { file: this.offsetsFile.label },
      );
    }
    if (whole) {
      this.abs = this._resolve(this.idx.payload, 0);
      if (this.abs[0] !== 0) throw new BpcellsError(`${this.idx.label}: first entry is ${this.abs[0]}, not 0`, { file: this.idx.label });
      checkMonotone(this.abs, 0, this.idx.label);
      const last = this.abs[this.abs.length - 1];
      if (last > this.data.count) {
        throw new BpcellsError(
          `${this.idx.label}: chunks end at word ${last} but ${this.data.label} holds only ${this.data.count} words (truncated?)`,
          { file: this.data.label },
        );
      }
      if (last !== this.data.count) {
        throw new BpcellsError(`${this.data.label}: ${this.data.count} words but ${this.idx.label} accounts for ${last} (trailing data)`, {
          file: this.data.label,
        });
      }
    }
  }

  // Absolute word offsets of idx entries first.. from their raw u32 bytes.
  // Entries of segment k (idx positions [offsets[k], offsets[k+1])) get k * 2^32 added; segment 0,
  // usually the only one, needs nothing.
  _resolve(bytes, first) {
    const o = this.offsets;
    // All in segment 0 (the usual case), aligned, little-endian host: the u32 values as they are.
    const n = bytes.length / 4;
    if (LITTLE_ENDIAN && bytes.byteOffset % 4 === 0 && (o.length < 3 || first + n <= o[1])) return new Uint32Array(bytes.buffer, bytes.byteOffset, n);
    const raw = u32ToNumbers(bytes);
    for (let k = 1; k + 1 < o.length; k++) {
      const lo = Math.max(o[k], first) - first;
      const hi = Math.min(o[k + 1], first + raw.length) - first;
      for (let i = lo; i < hi; i++) raw[i] += k * TWO32;
    }
    return raw;
  }

  // What chunk-decoder.js needs for values [p0, p1) of the stream: the chunks' word offsets,
  // starts and packed words, fetched and checked; nothing is decoded yet.
  async fetch(p0, p1) {
    if (p1 === p0) return null;
    const c0 = Math.floor(p0 / CHUNK);
    const c1 = Math.ceil(p1 / CHUNK);
    let abs;
    let startsBytes = new Uint8Array(0);
    let startsPending = null; // *_starts entries not held: fetched beside the words, which they do not place
    if (this.abs) {
      abs = this.abs.subarray(c0, c1 + 1);
      if (this.starts) {
        startsPending = this.starts.slice(c0, c1);
        startsPending.catch(() => {}); // a check below may throw first: its error is the one reported
      }
    } else {
      const [idxBytes, sb] = await Promise.all([this.idx.slice(c0, c1 + 1), this.starts ? this.starts.slice(c0, c1) : null]);
      abs = this._resolve(idxBytes, c0);
      if (c0 === 0 && abs[0] !== 0) throw new BpcellsError(`${this.idx.label}: first entry is ${abs[0]}, not 0`, { file: this.idx.label });
      checkMonotone(abs, c0, this.idx.label);
      if (sb) startsBytes = sb;
    }
    const w0 = abs[0];
    const w1 = abs[abs.length - 1];
    // Bound the fetch before making it: at most 32 bits per value.
    if (w1 - w0 > 4 * 32 * (c1 - c0)) {
      throw new BpcellsError(
        `${this.idx.label}: chunks ${c0}..${c1 - 1} span ${w1 - w0} words, more than 32 bits per value allows`,
        { file: this.idx.label },
      );
    }
    if (w1 > this.data.count) {
      throw new BpcellsError(
        `${this.data.label}: chunks ${c0}..${c1 - 1} need words [${w0}, ${w1}) but only ${this.data.count} words are present (truncated?)`,
        { file: this.data.label },
      );
    }
    const [words, sb] = await Promise.all([this.data.part(w0, w1), startsPending]);
    if (sb) startsBytes = sb;
    return { variant: this.variant, name: this.label, firstChunk: c0, abs, starts: startsBytes, words, skip: p0 - c0 * CHUNK, count: p1 - p0 };
  }

  // For the decode step (synchronous, so no other read replaces the range meanwhile): the run's
  // words in wasm memory ({ptr}), from the range kept there when it holds them, else written there
  // once (a local file read straight in, fetched bytes copied) and kept for the next reads when
  // they fit `budget` bytes; a larger range is left to chunk-decoder.js's bounded blocks.
  place(run, budget) {
    if (run === null) return null;
    const w0 = run.abs[0];
    const w1 = run.abs[run.abs.length - 1];
    const r = this.resident;
    if (r && r.w0 <= w0 && w1 <= r.w1) return { ptr: r.input.bytes.byteOffset + 4 * (w0 - r.w0) };
    if (4 * (w1 - w0) > budget) return run.words;
    this.release(); // before allocating: its memory can serve the new range
    const input = inputBuffer(4 * (w1 - w0), this.data.label);
    try {
      if (run.words.bytes) input.bytes.set(run.words.bytes);
      else run.words.read(0, w1 - w0, input.bytes);
    } catch (err) {
      input.release();
      throw err;
    }
    this.resident = { w0, w1, input };
    return { ptr: input.bytes.byteOffset };
  }

  /** Frees the words kept in wasm memory. */
  release() {
    this.resident?.input.release();
    this.resident = null;
  }
}

// Matrices never closed still give their wasm memory back when they are garbage collected.
export const residentRegistry =
  typeof FinalizationRegistry === 'function' ? new FinalizationRegistry((streams) => streams.forEach((st) => st.release())) : null;
