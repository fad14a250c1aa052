// Bounded mutation test of numdecode/parquet: a few thousand randomly damaged copies (flipped
// bytes, cut lengths, overwritten page header fields) of a built multi-shape file and of a
// parquet-cpp corpus file. Each read must give a well-formed result or an Error, and damage in
// bytes the read never touches must leave the result bit-identical; a damaged file must never
// crash, hang or make the reader allocate what its bytes have not earned.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { init, NumdecodeError } from '../../../js/index.js';
import { read, inspect } from '../../../js/parquet.js';
import { corpusRoot } from '../helpers/corpus.js';
import { buildParquet } from './parquet-build.js';
import { rng } from '../helpers/seeded-random.js';

const TIME_LIMIT_MS = 45000;


function builtFile() {
  const n = 3000;
  const d = new Float64Array(n);
  const f = new Float32Array(n);
  const valid = new Uint8Array(n).fill(1);
  for (let i = 0; i < n; i++) {
    d[i] = Math.round(Math.cos(i / 5) * 1e5) / 1e3;
    f[i] = Math.fround((i % 61) / 4);
    if (i % 11 === 4) valid[i] = 0;
  }
  const pages = (c, g) =>
    g === 0
      ? [{ rows: 900, kind: 'v1', encoding: c === 1 ? 'RLE_DICTIONARY' : 'ALP', layout: 'draft' }, { rows: 900, kind: 'v2', encoding: 'ALP' }]
      : [{ rows: 600, kind: 'v2', encoding: 'BSS' }, { rows: 600, kind: 'v1', encoding: 'ALP', layout: 'merged' }];
  return buildParquet({
    columns: [
      { name: 'd', type: 'DOUBLE', values: d, valid },
      { name: 'f', type: 'FLOAT', values: f, valid },
    ],
    rowGroups: [1800, 1200],
    codec: 'SNAPPY',
    pages,
    dictionary: (c, g) => c === 1 && g === 0,
    offsetIndex: true,
  });
}

// Byte positions of every page header, where damage is most telling.
async function headerSpans(bytes) {
  const info = await inspect(bytes);
  const spans = [];
  for (const g of info.rowGroups) for (const c of g.columns) for (const p of c.pages) spans.push([p.offset, p.offset + p.headerBytes]);
  return spans;
}

function mutate(bytes, spans, random) {
  const m = bytes.slice();
  const kind = Math.floor(random() * 4);
  if (kind === 0) {
    // flip 1-4 random bytes anywhere
    const k = 1 + Math.floor(random() * 4);
    for (let i = 0; i < k; i++) m[Math.floor(random() * m.length)] ^= 1 + Math.floor(random() * 255);
    return { kind: 'flip', bytes: m };
  }
  if (kind === 1) {
    // cut the file short (keeping a valid-looking tail is not needed: the footer is gone)
    return { kind: 'cut', bytes: m.subarray(0, Math.floor(random() * m.length)) };
  }
  if (kind === 2) {
    // overwrite bytes inside a page header: sizes, counts, encodings
    const [s, e] = spans[Math.floor(random() * spans.length)];
    const k = 1 + Math.floor(random() * 3);
    for (let i = 0; i < k; i++) m[s + Math.floor(random() * (e - s))] = Math.floor(random() * 256);
    return { kind: 'header', bytes: m };
  }
  // damage the footer
  const footerLen = new DataView(m.buffer).getUint32(m.length - 8, true);
  const start = Math.max(0, m.length - 8 - footerLen);
  m[start + Math.floor(random() * (m.length - 8 - start))] ^= 1 + Math.floor(random() * 255);
  return { kind: 'footer', bytes: m };
}

// The byte ranges a read of the original touches, from a source that records them.
async function rangesRead(original, options) {
  const ranges = [];
  const source = {
    size: () => original.length,
    read: (s, e) => {
      ranges.push([s, e]);
      return original.slice(s, e);
    },
  };
  const result = await read(source, options);
  return { result, ranges };
}

function bitsOf(values) {
  return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
}

function sameResult(a, b) {
  if (a.numRows !== b.numRows || Object.keys(a.columns).join() !== Object.keys(b.columns).join()) return false;
  for (const [name, col] of Object.entries(a.columns)) {
    const other = b.columns[name];
    if (col.type !== other.type) return false;
    const x = bitsOf(col.values);
    const y = bitsOf(other.values);
    if (x.length !== y.length || x.some((v, i) => v !== y[i])) return false;
    if ((col.valid === null) !== (other.valid === null)) return false;
    if (col.valid && col.valid.some((v, i) => v !== other.valid[i])) return false;
  }
  return true;
}

async function run(name, original, count, options, check, seed) {
  const spans = await headerSpans(original);
  const baseline = await rangesRead(original, options);
  const random = rng(seed);
  const tally = {};
  const started = Date.now();
  let done = 0;
  for (let i = 0; i < count && Date.now() - started < TIME_LIMIT_MS; i++) {
    const { kind, bytes } = mutate(original, spans, random);
    // Damage only in bytes the read never touches must leave the result exactly as it was.
    let damageRead = bytes.length !== original.length;
    for (let k = 0; k < bytes.length && !damageRead; k++) {
      if (bytes[k] !== original[k]) damageRead = baseline.ranges.some(([s, e]) => k >= s && k < e);
    }
    let outcome;
    try {
      const r = await read(bytes, options);
      check(r);
      if (!damageRead && !sameResult(r, baseline.result)) throw new Error('result check: damage outside the bytes read changed the result');
      outcome = damageRead ? 'result' : 'exact';
    } catch (err) {
      if (!(err instanceof Error)) throw new Error(`${name} mutant ${i} (${kind}): threw a non-Error ${String(err)}`);
      if (err.message.startsWith('result check')) throw new Error(`${name} mutant ${i} (${kind}): ${err.message}`);
      if (!damageRead) throw new Error(`${name} mutant ${i} (${kind}): damage outside the bytes read gave ${err.message}`);
      outcome = err instanceof NumdecodeError ? `${err.name} ${err.code}` : err.name;
      if (process.env.MUT_DEBUG && !(err instanceof NumdecodeError)) console.log(kind, err.stack);
    }
    tally[`${kind}: ${outcome}`] = (tally[`${kind}: ${outcome}`] ?? 0) + 1;
    done++;
  }
  return { done, tally, ms: Date.now() - started };
}

// A result is well formed: every column has one value per row, FLOAT / DOUBLE ones as typed arrays.
// (Damage to the footer may rename a column or change its type: that is a different, valid file.)
function wellFormed(numRows) {
  return (r) => {
    if (r.numRows !== numRows) throw new Error(`result check: numRows ${r.numRows}`);
    for (const [c, col] of Object.entries(r.columns)) {
      const typed = col.values instanceof Float32Array || col.values instanceof Float64Array;
      if ((col.type === 'FLOAT' || col.type === 'DOUBLE') !== typed) throw new Error(`result check: ${c} (${col.type}) values are ${col.values?.constructor?.name}`);
      if (col.values.length !== numRows) throw new Error(`result check: ${c} has ${col.values.length} values`);
      if (col.valid !== null && col.valid.length !== numRows) throw new Error(`result check: ${c} valid has ${col.valid.length}`);
    }
  };
}

beforeAll(() => init());

test('damaged copies of a built file: results or Errors, never a crash or hang', async () => {
  const original = builtFile();
  const { done, tally, ms } = await run('built', original, 2500, {}, wellFormed(3000), 15);
  console.log(`built file (${original.length} bytes): ${done} mutants in ${ms} ms`, tally);
  expect(done).toBeGreaterThan(500);
  // the damage is mostly detected: most mutants of page headers give a ParquetError
  const headerErrors = Object.entries(tally).filter(([k]) => k.startsWith('header: ParquetError')).reduce((s, [, v]) => s + v, 0);
  expect(headerErrors).toBeGreaterThan(0);
});

test('damaged copies of a parquet-cpp file (one column, a row range): results or Errors', async () => {
  const original = new Uint8Array(readFileSync(path.join(corpusRoot, 'parquet-alp/alp_float_arade.parquet')));
  const { done, tally, ms } = await run('corpus', original, 800, { columns: ['value2'], rowStart: 3000, rowEnd: 9000 }, wellFormed(6000), 16);
  console.log(`alp_float_arade.parquet: ${done} mutants in ${ms} ms`, tally);
  expect(done).toBeGreaterThan(200);
});
