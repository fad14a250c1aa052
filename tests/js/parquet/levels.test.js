// Definition levels read in the ALP module (js/parquet/page-nulls.js, src/parquet/levels.cpp), as
// a read does, against the JS reader that inspect() and readPages() use (js/parquet/levels.js):
// the same validity and present count for random streams, and the same words for damaged ones.
import { beforeAll, expect, test } from '@jest/globals';
import { init, wasmInput } from '../../../js/index.js';
import { loadCodec } from '../../../js/parquet/codecs.js';
import { levelBitWidth, readValidity } from '../../../js/parquet/levels.js';
import { MAX_WASM_PAGE_ROWS, validityInWasm, wasmBytes, wasmPageScratch } from '../../../js/parquet/page-nulls.js';
import { NumdecodeError } from '../../../js/errors.js';
import { memoryUsage, releaseMemory } from '../../../js/wasm/memory.js';
import { read, readView } from '../../../js/parquet.js';
import { buildParquet } from './parquet-build.js';
import { columnError } from '../../../js/parquet/column-error.js';

beforeAll(() => init({ formats: ['alp'] }));

// A small deterministic generator (the streams must be the same each run).
function rng(seed) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const uleb = (out, v) => {
  do {
    let b = v & 0x7f;
    v = Math.floor(v / 128);
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
};

// The hybrid encoding writers make: runs of 8 or more equal levels as RLE runs, the rest in
// bit-packed groups of 8.
function encode(levels, bitWidth) {
  const out = [];
  for (let i = 0; i < levels.length; ) {
    let same = 1;
    while (i + same < levels.length && levels[i + same] === levels[i]) same++;
    if (same >= 8) {
      uleb(out, same * 2);
      out.push(levels[i]);
      i += same;
      continue;
    }
    uleb(out, 3); // one group of 8
    let buf = 0;
    let bits = 0;
    for (let k = 0; k < 8; k++) {
      buf |= (levels[i + k] ?? 0) << bits;
      bits += bitWidth;
      while (bits >= 8) {
        out.push(buf & 0xff);
        buf >>>= 8;
        bits -= 8;
      }
    }
    i += 8;
  }
  return Uint8Array.from(out);
}

// Both readers on the same bytes: {present, valid} or {error}.
function bothReaders(runs, maxDef, count) {
  const bitWidth = levelBitWidth(maxDef);
  const js = new Uint8Array(count).fill(1);
  const present = readValidity(runs, 0, runs.length, bitWidth, count, maxDef, js, 0);
  const fromJs = typeof present === 'string' ? { error: `definition levels: ${present}` } : { present, valid: js };
  const scratch = wasmPageScratch();
  try {
    scratch.reserve(count);
    const address = scratch.validityAt;
    let fromWasm;
    try {
      const n = validityInWasm(runs, bitWidth, maxDef, count, address);
      fromWasm = { present: n, valid: wasmBytes(address, count).slice() };
    } catch (msg) {
      fromWasm = { error: msg };
    }
    return { fromJs, fromWasm };
  } finally {
    scratch.release();
  }
}

test('random streams: the same validity and present count, levels of 1 to 3 bits', () => {
  const next = rng(5);
  for (let round = 0; round < 200; round++) {
    const maxDef = 1 + Math.floor(next() * 5);
    const count = Math.floor(next() * 4000);
    const nullShare = round % 4 === 0 ? 0.01 : next();
    const levels = Array.from({ length: count }, () => (next() < nullShare ? Math.floor(next() * maxDef) : maxDef));
    const { fromJs, fromWasm } = bothReaders(encode(levels, levelBitWidth(maxDef)), maxDef, count);
    const present = levels.filter((l) => l === maxDef).length;
    expect(fromWasm.present).toBe(present);
    expect(fromJs.present).toBe(present);
    expect(fromWasm.valid).toEqual(Uint8Array.from(levels, (l) => (l === maxDef ? 1 : 0)));
    expect(fromWasm.valid).toEqual(fromJs.valid);
  }
});

test('damaged streams: both refuse them with the same words, or both read the same', () => {
  const next = rng(9);
  const outcomes = { same: 0, refused: 0 };
  for (let round = 0; round < 400; round++) {
    const maxDef = 1 + Math.floor(next() * 3);
    const count = 1 + Math.floor(next() * 300);
    const levels = Array.from({ length: count }, () => (next() < 0.2 ? Math.floor(next() * maxDef) : maxDef));
    let runs = encode(levels, levelBitWidth(maxDef));
    if (round % 3 === 0) runs = runs.subarray(0, Math.floor(next() * runs.length));
    else for (let k = 0; k < 2; k++) runs[Math.floor(next() * runs.length)] = Math.floor(next() * 256);
    const { fromJs, fromWasm } = bothReaders(runs, maxDef, count);
    expect(fromWasm).toEqual(fromJs);
    outcomes[fromJs.error ? 'refused' : 'same']++;
  }
  // both kinds of outcome were met
  expect(outcomes.refused).toBeGreaterThan(50);
  expect(outcomes.same).toBeGreaterThan(20);
});

test('page scratch holds the ALP module memory while reserved, not after; pages past its limit are not given any', () => {
  const scratch = wasmPageScratch();
  scratch.reserve(100);
  expect([scratch.fits(100), scratch.fits(101), memoryUsage().alp.live]).toEqual([true, false, { 'parquet page scratch': 1 }]);
  expect(scratch.valuesAt % 8).toBe(0);
  expect(scratch.valuesAt).toBeGreaterThanOrEqual(scratch.validityAt + 100);
  scratch.reserve(2 ** 31); // a page header may claim anything: the scratch stops at its limit
  expect([scratch.fits(MAX_WASM_PAGE_ROWS), scratch.fits(MAX_WASM_PAGE_ROWS + 1)]).toEqual([true, false]);
  scratch.release();
  expect([scratch.fits(1), memoryUsage().alp.live]).toEqual([false, {}]);
});

test('runs counted past 2^32 values are refused, not wrapped (wasm counts in 32 bits)', () => {
  // a bit-packed run header of 2^29 groups of 8 levels of 8 bits: 2^32 values, 2^32 bytes
  const header = [];
  uleb(header, 2 ** 30 + 1);
  const { fromJs, fromWasm } = bothReaders(Uint8Array.from([...header, 255, 255]), 255, 10);
  expect(fromWasm).toEqual({ error: 'definition levels: a bit-packed run of 4294967296 values passes the 10 values of the page' });
  expect(fromWasm).toEqual(fromJs);
});

test('no room for page scratch is ERR_OUTPUT_LIMIT, and stays so named by its column', () => {
  const err = new NumdecodeError("out of wasm memory for 9437192 bytes of page scratch", { code: 'ERR_OUTPUT_LIMIT' });
  const named = columnError({ file: 'f.parquet', column: 'x', rowGroup: 2, page: 7 }, err);
  expect(named).toMatchObject({ code: 'ERR_OUTPUT_LIMIT', file: 'f.parquet', column: 'x', rowGroup: 2, page: 7 });
  expect(named.message).toBe('parquet: f.parquet: column x, row group 2, page 7: out of wasm memory for 9437192 bytes of page scratch');
});

test('a page whose scratch grows the ALP module memory reads exactly, from bytes and as a view (its bytes are a view of that memory)', async () => {
  // a page of a million rows: about 8 MB of values (full-precision doubles: ALP keeps them nearly
  // whole) and 9 MB of scratch
  const n = 1_000_000;
  const d = new Float64Array(n);
  const valid = new Uint8Array(n).fill(1);
  for (let i = 0; i < n; i++) {
    if (i % 97 === 5) valid[i] = 0;
    else d[i] = Math.sin(i);
  }
  for (const encoding of ['PLAIN', 'ALP']) {
    const bytes = buildParquet({ columns: [{ name: 'd', type: 'DOUBLE', values: d, valid }], rowGroups: [n], pages: () => [{ rows: n, kind: 'v1', encoding }] });
    for (const how of ['read', 'readView']) {
      await releaseMemory({ formats: ['alp'] }); // a fresh module of 16 MB: the read must grow it
      const before = memoryUsage().alp.bytes;
      const r = await (how === 'read' ? read(bytes) : readView(bytes));
      const got = r.columns.d;
      expect(Buffer.from(got.values.buffer, got.values.byteOffset, got.values.byteLength).equals(Buffer.from(d.buffer))).toBe(true);
      expect(Buffer.from(got.valid).equals(Buffer.from(valid))).toBe(true);
      // (the case this test is for: the ALP page's chunk and scratch do not fit a fresh module)
      if (encoding === 'ALP') expect([how, memoryUsage().alp.bytes > before]).toEqual([how, true]);
      r.release?.();
    }
  }
}, 60_000);

test('an ALP module built before these helpers is ERR_UNSUPPORTED (dist/ out of date), not damaged data', async () => {
  const { getModule } = await import('../../../js/wasm/load.js');
  const mod = getModule('alp');
  const kept = mod._numdecode_parquet_validity;
  const bytes = buildParquet({ columns: [{ name: 'd', type: 'DOUBLE', values: new Float64Array(100), valid: new Uint8Array(100).fill(1) }], rowGroups: [100], pages: () => [{ rows: 100, kind: 'v1', encoding: 'ALP' }] });
  mod._numdecode_parquet_validity = undefined;
  try {
    const err = await read(bytes).catch((e) => e);
    expect(err).toMatchObject({ name: 'ParquetError', code: 'ERR_UNSUPPORTED', column: 'd', rowGroup: 0, page: 0 });
    expect(err.message).toMatch(/the loaded alp module has no _numdecode_parquet_validity\(\); dist\/ is out of date/);
  } finally {
    mod._numdecode_parquet_validity = kept;
  }
  expect((await read(bytes)).columns.d.values).toEqual(new Float64Array(100));
});

test('a v2 page whose decompression awaits (GZIP through DecompressionStream, as in browsers) reads exactly while other work grows the ALP module memory', async () => {
  // Node's zlib hidden from the codec as it loads: gunzip through DecompressionStream, asynchronous.
  const real = process.getBuiltinModule;
  process.getBuiltinModule = (name) => (name === 'node:zlib' ? undefined : real.call(process, name));
  let gunzip;
  try {
    gunzip = await loadCodec('GZIP');
  } finally {
    process.getBuiltinModule = real;
  }
  const { gzipSync } = await import('node:zlib');
  const small = gunzip(gzipSync(Uint8Array.of(1, 2, 3)), 3);
  expect(small).toBeInstanceOf(Promise); // (asynchronous: the case this test is for)
  expect(await small).toEqual(Uint8Array.of(1, 2, 3));
  const n = 400_000;
  const d = new Float64Array(n);
  const valid = new Uint8Array(n).fill(1);
  for (let i = 0; i < n; i++) {
    if (i % 97 === 5) valid[i] = 0;
    else d[i] = (i % 1000) / 8;
  }
  const bytes = buildParquet({ columns: [{ name: 'd', type: 'DOUBLE', values: d, valid }], rowGroups: [n], codec: 'GZIP', pages: () => Array.from({ length: 8 }, () => ({ rows: n / 8, kind: 'v2', encoding: 'PLAIN' })) });
  await releaseMemory({ formats: ['alp'] });
  // other work in the module at every turn of the event loop: 1 MiB each, the memory grows often
  const kept = [];
  let stop = false;
  const tick = () => {
    if (stop) return;
    kept.push(wasmInput('alp', 1 << 20));
    setImmediate(tick);
  };
  tick();
  try {
    const r = await read(bytes);
    expect(Buffer.from(r.columns.d.values.buffer).equals(Buffer.from(d.buffer))).toBe(true);
    expect(Buffer.from(r.columns.d.valid).equals(Buffer.from(valid))).toBe(true);
  } finally {
    stop = true;
    for (const k of kept) k.release();
  }
  expect(kept.length).toBeGreaterThan(16); // (the memory grew past a fresh module's 16 MiB meanwhile)
}, 60_000);
