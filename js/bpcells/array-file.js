// Array files of a matrix directory (src/bpcells/array_file.cpp has the same rules): numeric
// arrays are an 8-byte header naming the element type (UINT32v1, UINT64v1, FLOATSv1, DOUBLEv1)
// followed by little-endian values; string arrays are text, one value per line.
//
// An ArrayFile is either held whole (load) or known by header and size (probe) and read by
// element range; either way every range is checked against the file's length first.
import { BpcellsError } from '../errors.js';
import { wasmCaller } from '../wasm/call.js';
import { getModule } from '../wasm/load.js';

/** Bytes of a numeric array file's header. */
export const HEADER = 8;
const ELEM_BYTES = { u32: 4, u64: 8, f32: 4, f64: 8 };
const ELEM_TYPE_CODE = { u32: 0, u64: 1, f32: 2, f64: 3 }; // numdecode_bpcells_check_header's codes
const utf8 = new TextEncoder();

/** The BPCells module's calls: its errors become BpcellsErrors, err.file the array file the binding names. */
export const callBpcells = wasmCaller('bpcells', BpcellsError);

/** Throws (BpcellsError, file = name) unless `bytes` begins with the header of an array of `type`. */
export function checkHeader(bytes, type, name) {
  callBpcells([bytes.subarray(0, HEADER), utf8.encode(name)], (p, l, namePtr, nameLen) =>
    getModule('bpcells')._numdecode_bpcells_check_header(p, l, ELEM_TYPE_CODE[type] ?? -1, namePtr, nameLen),
  );
}

/** The lines of a string array file (an empty file: no lines; '\r\n' as '\n'). */
export function textLines(bytes) {
  const text = new TextDecoder('utf-8').decode(bytes);
  if (text.length === 0) return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop(); // the '\n' after the last value
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/** The one value of a string array file that must hold exactly one (storage_order). */
export function singleLine(bytes, name) {
  const lines = textLines(bytes);
  if (lines.length !== 1) {
    throw new BpcellsError(`${name}: expected exactly one line, found ${lines.length} (${bytes.length} bytes)`, { file: name });
  }
  return lines[0];
}

/**
 * What errors call file `name` of `source`: the name itself in a directory, the dataset path in an
 * HDF5 group (its source's locate(): "/mat/idxptr").
 */
export function labelOf(source, name) {
  return source.locate?.(name) ?? name;
}

/**
 * One numeric array file of `source`: either held whole, or known by header + size and read by
 * range. `name` is the file's name in the source, `label` what errors call it.
 */
export class ArrayFile {
  constructor(source, name, type) {
    this.source = source;
    this.name = name;
    this.label = labelOf(source, name);
    this.type = type;
    this.elem = ELEM_BYTES[type];
    this.payload = null; // Uint8Array when held whole
    this.count = 0;
  }

  get whole() {
    return this.payload !== null;
  }

  /** Takes the file's size in bytes: the element count follows (a partial element is an error). */
  setSize(size) {
    const payloadBytes = size - HEADER;
    if (payloadBytes % this.elem !== 0) {
      throw new BpcellsError(
        `${this.label}: payload of ${payloadBytes} bytes is not a whole number of ${this.elem}-byte values (${payloadBytes % this.elem} stray bytes)`,
        { file: this.label },
      );
    }
    this.count = payloadBytes / this.elem;
    this.size = size;
  }

  /** Reads and keeps the whole file. */
  async load() {
    const bytes = await this.source.readAll(this.name);
    checkHeader(bytes, this.type, this.label);
    this.setSize(bytes.length);
    this.payload = bytes.subarray(HEADER);
    return this;
  }

  /** Header and size only (one small request over HTTP: the size comes with the range answer). */
  async probe() {
    let header;
    try {
      header = await this.source.read(this.name, 0, HEADER);
    } catch (err) {
      // A file too short for its header says so, rather than "needs bytes [0, 8)".
      const size = await this.source.size(this.name).catch(() => null);
      if (size !== null && size < HEADER) {
        throw new BpcellsError(`${this.label}: file is ${size} bytes, shorter than the 8-byte array header`, { file: this.label, cause: err });
      }
      throw err;
    }
    checkHeader(header, this.type, this.label);
    this.setSize(await this.source.size(this.name));
    return this;
  }

  checkEnd(i0, i1) {
    if (i1 > this.count) {
      throw new BpcellsError(`${this.label}: needs entries [${i0}, ${i1}) but the file holds only ${this.count} (truncated?)`, {
        file: this.label,
      });
    }
  }

  /** Payload bytes of elements [i0, i1) (a view into the held file when held whole). */
  async slice(i0, i1) {
    this.checkEnd(i0, i1);
    if (this.whole) return this.payload.subarray(i0 * this.elem, i1 * this.elem);
    return this.source.read(this.name, HEADER + i0 * this.elem, HEADER + i1 * this.elem);
  }

  /**
   * Elements [i0, i1) as a part for the decode step: {bytes} fetched now, or, where the file reads
   * synchronously (local files), {read(a, b, target)} that reads elements [i0 + a, i0 + b) into a
   * Uint8Array (wasm memory, a caller's array) when the decode step needs them: one copy, no JS
   * buffer in between.
   */
  async part(i0, i1) {
    this.checkEnd(i0, i1);
    const read = this.whole ? null : this.source.syncReader?.(this.name);
    if (!read) return { bytes: await this.slice(i0, i1) };
    const at = (i) => HEADER + (i0 + i) * this.elem;
    return { read: (a, b, target) => read(at(a), at(b), target) };
  }
}

/**
 * Copies an unpacked array's part (ArrayFile.part: fetched bytes, or a synchronous file read) into a
 * target of slice-output.js: a JS typed array or a place in wasm memory. One copy either way.
 */
export function copyPart(part, count, elem, target) {
  const n = count * elem;
  const dst = target.array
    ? new Uint8Array(target.array.buffer, target.array.byteOffset, n)
    : getModule('bpcells').HEAPU8.subarray(target.ptr, target.ptr + n);
  if (part.bytes) dst.set(part.bytes);
  else part.read(0, count, dst);
}
