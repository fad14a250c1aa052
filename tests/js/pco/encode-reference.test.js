// Our encoder's files read by the reference: the values of every corpus Pco file, encoded by
// pco.encode (automatic choices at level 8, and again with the mode and delta the reference chose
// for that file, as pco.inspect reports them), decode with pcodec 1.0.3's own decoder
// (../shared/tools/pcodec-ref/ref_pco.wasm) to the same bits. On the files the reference wrote with
// automatic choices, ours are at most 1.03x its size.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { typedArrayFor } from '../../../js/dtypes.js';
import { init, pco } from '../../../js/index.js';
import { bytesOf, corpusRoot, pcoCases, pcoDir, readBytes } from '../helpers/corpus.js';

const REF_WASM = path.resolve(corpusRoot, '../tools/pcodec-ref/ref_pco.wasm');
const REF_DTYPE = { u32: 1, u64: 2, i32: 3, i64: 4, f32: 5, f64: 6, u16: 7, i16: 8, f16: 9, u8: 10, i8: 11 };
const WIDTH = { u8: 1, i8: 1, u16: 2, i16: 2, f16: 2, u32: 4, i32: 4, f32: 4, u64: 8, i64: 8, f64: 8 };

let reference = null;

beforeAll(async () => {
  await init({ formats: ['pco'] });
  if (existsSync(REF_WASM)) reference = (await WebAssembly.instantiate(readFileSync(REF_WASM), {})).instance.exports;
});

// The reference's decode of a standalone file of n values of dtype: their bytes, or its error code.
function referenceDecode(file, dtype, n) {
  const e = reference;
  const src = e.ref_alloc(file.length);
  new Uint8Array(e.memory.buffer, src, file.length).set(file);
  const dst = (e.ref_alloc(n * WIDTH[dtype] + 8) + 7) & ~7;
  const got = Number(e.ref_decode(REF_DTYPE[dtype], src, file.length, dst, n));
  if (got !== n) return got;
  return new Uint8Array(e.memory.buffer, dst, n * WIDTH[dtype]).slice();
}

// Each chunk of a corpus file with its values (a file of mixed dtypes has one run per dtype).
function corpusRuns(c) {
  const bytes = readBytes(pcoDir, c.file);
  const info = pco.inspect(bytes);
  return pco.decodeChunks(bytes).map((chunk, i) => ({ ...chunk, info: info.chunks[i] }));
}

const standalone = pcoCases().filter((c) => c.format === 'standalone');

describe('the reference decodes our encoding of every corpus file', () => {
  test('the reference decoder is present', () => {
    expect(reference).not.toBeNull();
  });

  test.each(standalone.map((c) => [c.name, c]))('%s', async (_, c) => {
    // Chunks of one dtype go together, in the reference's chunk sizes; mixed files chunk by chunk.
    const runs = corpusRuns(c);
    const mixed = new Set(runs.map((r) => r.dtype)).size > 1;
    const groups = mixed ? runs.map((r) => [r]) : runs.length ? [runs] : [];
    for (const group of groups) {
      const dtype = group[0].dtype;
      const all = new Uint8Array(group.reduce((s, r) => s + bytesOf(r.values).length, 0));
      let at = 0;
      for (const r of group) all.set(bytesOf(r.values), at), (at += bytesOf(r.values).length);
      const typed = new (typedArrayFor(dtype))(all.buffer);
      const n = all.length / WIDTH[dtype];
      const chunkSizes = group.map((r) => r.values.length);
      const configs = [{ chunkSizes }, { chunkSizes: [n], mode: group[0].info.mode, delta: group[0].info.delta }];
      for (const options of configs) {
        const file = await pco.encode(typed, { ...options, dtype });
        const decoded = referenceDecode(file, dtype, n);
        expect(decoded).toBeInstanceOf(Uint8Array);
        expect(Buffer.from(decoded).equals(Buffer.from(all))).toBe(true);
      }
    }
  });
});

// Every mode and delta encoding on bit patterns of each dtype (random bits: NaN payloads,
// infinities, subnormals, -0 among the floats; runs of multiples and smooth stretches for the
// modes and deltas to find), and the file's pages short, so that batches and pages end unevenly.
describe('the reference decodes every mode and delta encoding we write', () => {
  const DTYPES = ['u8', 'i8', 'u16', 'i16', 'f16', 'u32', 'i32', 'f32', 'u64', 'i64', 'f64'];
  const MODES = {
    int: ['auto', 'classic', 'dict', { kind: 'intMult', base: 3 }],
    float: ['auto', 'classic', 'dict', { kind: 'floatMult', base: 0.5 }, { kind: 'floatQuant', k: 2 }],
  };
  const DELTAS = ['auto', 'noOp', { kind: 'consecutive', order: 1 }, { kind: 'consecutive', order: 3 }, 'lookback', { kind: 'conv1', order: 2 }];

  function bitPatterns(dtype, n) {
    const width = WIDTH[dtype];
    const bytes = new Uint8Array(n * width);
    let seed = 12345;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8;
    for (let i = 0; i < bytes.length; i++) bytes[i] = next() & 0xff;
    const values = new (typedArrayFor(dtype))(bytes.buffer);
    const big = width === 8 && !dtype.startsWith('f');
    for (let i = 0; i < n; i += 2) {
      // Multiples of 3, and a smooth stretch, between the random bit patterns.
      if (dtype.startsWith('f') && dtype !== 'f16') values[i] = i % 4 === 0 ? (i % 100) * 0.5 : Math.sin(i / 50) * 10;
      else if (dtype !== 'f16') values[i] = big ? BigInt(i * 3) : (i * 3) % 100;
    }
    return values;
  }

  test.each(DTYPES)('%s', async (dtype) => {
    expect(reference).not.toBeNull();
    const values = bitPatterns(dtype, 1500);
    const modes = dtype.startsWith('f') ? MODES.float : MODES.int;
    for (const mode of modes) {
      for (const delta of DELTAS) {
        if (WIDTH[dtype] === 8 && typeof delta === 'object' && delta.kind === 'conv1') continue; // not defined for 64 bits
        const file = await pco.encode(values, { dtype, mode, delta, chunkSize: 700 });
        const decoded = referenceDecode(file, dtype, values.length);
        expect({ mode, delta, same: decoded instanceof Uint8Array && Buffer.from(decoded).equals(Buffer.from(bytesOf(values))) }).toEqual({ mode, delta, same: true });
      }
    }
  });
});

describe('sizes beside the reference (automatic mode and delta, level 8)', () => {
  const auto = standalone.filter((c) => c.mode_hint === 'Auto' && c.delta_hint === 'Auto' && c.chunks > 0);
  test.each(auto.map((c) => [c.name, c]))('%s', async (_, c) => {
    const ref = readBytes(pcoDir, c.file);
    const values = pco.decode(ref);
    const info = pco.inspect(ref);
    const ours = await pco.encode(values, { chunkSizes: info.chunks.map((ch) => ch.n), dtype: info.chunks[0].dtype });
    // Files of older formats had shorter headers: compare as format 4.1 would frame them.
    const refHeader = info.chunks[0].byteRange[0];
    const oursHeader = pco.inspect(ours).chunks[0].byteRange[0];
    expect(ours.length).toBeLessThanOrEqual(1.03 * (ref.length - refHeader + oursHeader));
  });
});
