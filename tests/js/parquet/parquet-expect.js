// What the parquet-cpp ALP corpus holds (its CSVs, as the writer meant them) and a bit-exact
// comparison, shared by the Parquet tests.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from '@jest/globals';
import { corpusRoot } from '../helpers/corpus.js';

export const corpusDir = path.join(corpusRoot, 'parquet-alp');

// The CSV columns as the writer meant them: doubles, rounded to f32 for FLOAT columns.
export function expectedColumns(csvFile, floatColumns) {
  const lines = readFileSync(path.join(corpusDir, csvFile), 'utf8').trim().split('\n');
  const names = lines[0].split(',');
  const cols = names.map((n) => (floatColumns ? new Float32Array(lines.length - 1) : new Float64Array(lines.length - 1)));
  for (let i = 1; i < lines.length; i++) {
    const f = lines[i].split(',');
    for (let j = 0; j < names.length; j++) cols[j][i - 1] = Number(f[j]);
  }
  return Object.fromEntries(names.map((n, j) => [n, cols[j]]));
}

function bits(typed) {
  return typed instanceof Float32Array ? new Uint32Array(typed.buffer, typed.byteOffset, typed.length) : new BigUint64Array(typed.buffer, typed.byteOffset, typed.length);
}

// Bit-exact comparison; reports the first differing index.
export function expectSameBits(got, want, what) {
  expect(got.constructor).toBe(want.constructor);
  expect(got.length).toBe(want.length);
  const a = bits(got);
  const b = bits(want);
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) throw new Error(`${what}: value ${i} is ${got[i]} (bits ${a[i]}), expected ${want[i]} (bits ${b[i]})`);
  }
}

