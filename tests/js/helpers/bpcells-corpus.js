// Shared by the BPCells Jest files: the corpus set, expected arrays, and whole/piecewise checks.
import { expect } from '@jest/globals';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const corpusRoot = process.env.NUMDECODE_CORPUS_DIR
  ? path.resolve(process.env.NUMDECODE_CORPUS_DIR)
  : path.resolve(projectRoot, '../shared/corpus');
export const setDir = path.join(corpusRoot, 'bpcells');
export const readJson = (p) => JSON.parse(readFileSync(p, 'utf8'));
export const cases = readJson(path.join(setDir, 'manifest.json'));
export const corruptCases = readJson(path.join(setDir, 'corrupt', 'manifest.json'));
export const LARGE = 'packed_uint_large_20000x3000';

// What our error must say for each corrupt category of the manifest.
export const CATEGORY = {
  truncated: /truncated/,
  header: /header/,
  monotone: /not monotone/,
  'index out of range': /out of range/,
  'idx past data': /truncated/,
  'missing file': /missing/,
  version: /unsupported matrix version/,
};

export const bytes = (p) => new Uint8Array(readFileSync(p));
export const u8 = (t) => new Uint8Array(t.buffer, t.byteOffset, t.byteLength);
export function sameBytes(a, b) {
  return a.byteLength === b.byteLength && Buffer.from(a).equals(Buffer.from(b));
}
export function namesOf(file) {
  try {
    const lines = readFileSync(file, 'utf8').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    return lines;
  } catch {
    return [];
  }
}
export function expected(c) {
  const dir = path.join(setDir, c.expected);
  const ext = { uint32: 'u32', float32: 'f32', float64: 'f64' }[c.dtype];
  const ptr = new BigUint64Array(bytes(path.join(dir, 'idxptr.u64')).buffer);
  return {
    idxptr: Float64Array.from(ptr, Number),
    index: bytes(path.join(dir, 'index.u32')),
    val: bytes(path.join(dir, `val.${ext}`)),
    rowNames: namesOf(path.join(dir, 'row_names.txt')),
    colNames: namesOf(path.join(dir, 'col_names.txt')),
  };
}
/** Positions [a, b) of compressed arrays {idxptr, index (bytes), val (bytes)}: idxptr from 0, byte subarrays. */
export function slicePart(lay, a, b, valBytes) {
  const p0 = lay.idxptr[a];
  const p1 = lay.idxptr[b];
  return {
    idxptr: Float64Array.from(lay.idxptr.subarray(a, b + 1), (x) => x - p0),
    index: lay.index.subarray(4 * p0, 4 * p1),
    val: lay.val.subarray(valBytes * p0, valBytes * p1),
  };
}

export function dirBytes(dir) {
  return readdirSync(dir).reduce((s, f) => s + statSync(path.join(dir, f)).size, 0);
}


export async function checkWhole(m, c, exp) {
  expect(m.version).toBe(c.version);
  expect(m.storageOrder).toBe(c.storage_order);
  expect(m.shape).toEqual(c.shape);
  expect(m.nnz).toBe(c.nnz);
  expect(m.dtype).toBe({ uint32: 'u32', float32: 'f32', float64: 'f64' }[c.dtype]);
  const r = await m.read();
  expect(r.idxptr).toBeInstanceOf(Float64Array);
  expect(r.idxptr).toEqual(exp.idxptr);
  expect(r.index).toBeInstanceOf(Uint32Array);
  expect(sameBytes(u8(r.index), exp.index)).toBe(true);
  expect(r.val).toBeInstanceOf({ uint32: Uint32Array, float32: Float32Array, float64: Float64Array }[c.dtype]);
  expect(sameBytes(u8(r.val), exp.val)).toBe(true); // bit-exact, also -0 / NaN payloads
  expect(await m.rowNames()).toEqual(exp.rowNames);
  expect(await m.colNames()).toEqual(exp.colNames);
  expect(exp.rowNames.length > 0).toBe(c.has_row_names);
}

// Three uneven pieces of the major axis, each compared with the expected slice.
export async function checkPieces(m, exp) {
  const major = m.major;
  const cuts = [0, Math.floor(major / 3), Math.floor(major / 3) + 1, major];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const [a, b] = [cuts[k], cuts[k + 1]];
    const r = await m.read(a, b);
    const p0 = exp.idxptr[a];
    const p1 = exp.idxptr[b];
    expect(Array.from(r.idxptr)).toEqual(Array.from(exp.idxptr.subarray(a, b + 1), (x) => x - p0));
    expect(sameBytes(u8(r.index), exp.index.subarray(4 * p0, 4 * p1))).toBe(true);
    const w = r.val.BYTES_PER_ELEMENT;
    expect(sameBytes(u8(r.val), exp.val.subarray(w * p0, w * p1))).toBe(true);
  }
}

