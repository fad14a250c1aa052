// The columns the Parquet tests build files from (parquet-build.js): a DOUBLE and a FLOAT with
// nulls and values ALP keeps only as exceptions (NaN payloads, -0, infinities), an INT32 left to
// hyparquet, and pages that mix kinds, encodings and ALP layouts; expectColumn compares a read
// column with them bit for bit, nulls read as 0.
import { expect } from '@jest/globals';
import { expectSameBits } from './parquet-expect.js';

export const N = 6000;
function sampleColumns() {
  const d = new Float64Array(N);
  const f = new Float32Array(N);
  const valid = new Uint8Array(N).fill(1);
  const ints = new Int32Array(N);
  for (let i = 0; i < N; i++) {
    d[i] = Math.round(Math.sin(i / 7) * 1e6) / 1e4;
    f[i] = Math.fround((i % 211) / 8 - 3.25);
    ints[i] = i * 7 - 1000;
    if (i % 17 === 3 || (i >= 2500 && i < 2600)) {
      valid[i] = 0;
      d[i] = 0;
      f[i] = 0;
    }
  }
  // values ALP keeps only as exceptions
  d[10] = NaN;
  d[11] = -0;
  d[12] = Infinity;
  d[13] = Math.PI;
  f[10] = -Infinity;
  f[11] = -0;
  new Uint32Array(f.buffer)[14] = 0x7fc00001; // a NaN payload
  return { d, f, valid, ints };
}
export const S = sampleColumns();

export const columnsSpec = (requiredF) => [
  { name: 'd', type: 'DOUBLE', values: S.d, valid: S.valid },
  requiredF ? { name: 'f', type: 'FLOAT', values: S.f.map((x, i) => (S.valid[i] ? x : 1.5)), required: true } : { name: 'f', type: 'FLOAT', values: S.f, valid: S.valid },
  { name: 'i', type: 'INT32', values: S.ints, required: true },
];

// Row groups 3500 + 2500; each mixes page kinds, encodings and layouts.
export const mixedPages = (c, g) =>
  g === 0
    ? [
        { rows: 1100, kind: 'v1', encoding: c === 1 ? 'RLE_DICTIONARY' : 'ALP', layout: 'draft' },
        { rows: 1400, kind: 'v2', encoding: 'ALP', layout: 'merged' },
        { rows: 1000, kind: 'v2', encoding: 'BSS' },
      ]
    : [
        { rows: 700, kind: 'v2', encoding: 'PLAIN' },
        { rows: 1300, kind: 'v1', encoding: 'ALP', layout: 'merged' },
        { rows: 500, kind: 'v2', encoding: 'ALP', layout: 'draft' },
      ];

export function expectColumn(got, values, valid, a = 0, b = N) {
  expectSameBits(got.values, expectedSlice(values, valid, a, b), 'values');
  if (valid && valid.subarray(a, b).includes(0)) expect(Array.from(got.valid)).toEqual(Array.from(valid.subarray(a, b)));
  else expect(got.valid).toBeNull();
}

export function expectedSlice(values, valid, a, b) {
  const out = values.slice(a, b);
  // nulls read as 0
  if (valid) for (let i = a; i < b; i++) if (!valid[i]) out[i - a] = 0;
  return out;
}
