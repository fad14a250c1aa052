// Definition levels read in the ALP module (js/parquet/page-nulls.js, src/parquet/levels.cpp), as
// a read does, against the JS reader that inspect() and readPages() use (js/parquet/levels.js):
// the same validity and present count for random streams, and the same words for damaged ones.
import { beforeAll, expect, test } from '@jest/globals';
import { init } from '../../../js/index.js';
import { levelBitWidth, readValidity } from '../../../js/parquet/levels.js';
import { validityInWasm, wasmBytes, wasmPageScratch } from '../../../js/parquet/page-nulls.js';
import { memoryUsage } from '../../../js/wasm/memory.js';
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
    const address = scratch.validity(count);
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

test('a read holds the ALP module memory while its page scratch lives, not after', () => {
  const scratch = wasmPageScratch();
  scratch.validity(100);
  expect(memoryUsage().alp.live).toEqual({ 'parquet page scratch': 1 });
  scratch.release();
  expect(memoryUsage().alp.live).toEqual({});
});

test('runs counted past 2^32 values are refused, not wrapped (wasm counts in 32 bits)', () => {
  // a bit-packed run header of 2^29 groups of 8 levels of 8 bits: 2^32 values, 2^32 bytes
  const header = [];
  uleb(header, 2 ** 30 + 1);
  const { fromJs, fromWasm } = bothReaders(Uint8Array.from([...header, 255, 255]), 255, 10);
  expect(fromWasm).toEqual({ error: 'definition levels: a bit-packed run of 4294967296 values passes the 10 values of the page' });
  expect(fromWasm).toEqual(fromJs);
});

test('page scratch the module cannot hold is ERR_OUTPUT_LIMIT, and stays so named by its column', () => {
  const scratch = wasmPageScratch();
  let err;
  try {
    scratch.values(2 ** 33);
  } catch (e) {
    err = e;
  } finally {
    scratch.release();
  }
  expect(err).toMatchObject({ code: 'ERR_OUTPUT_LIMIT', message: "out of wasm memory for 8589934592 bytes of a page's values" });
  const named = columnError({ file: 'f.parquet', column: 'x', rowGroup: 2, page: 7 }, err);
  expect(named).toMatchObject({ code: 'ERR_OUTPUT_LIMIT', file: 'f.parquet', column: 'x', rowGroup: 2, page: 7 });
  expect(named.message).toBe("parquet: f.parquet: column x, row group 2, page 7: out of wasm memory for 8589934592 bytes of a page's values");
});
