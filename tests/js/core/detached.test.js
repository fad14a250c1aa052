// A typed array whose ArrayBuffer was moved away (postMessage with transfer: a worker now holds the
// bytes) is refused with a TypeError naming the argument, not the engine's own message ("Cannot
// perform %TypedArray%.prototype.set on a detached ArrayBuffer") or a misleading one ("out (0
// bytes) is too small"). The same call with the bytes still here decodes the corpus' values.
import { beforeAll, expect, test } from '@jest/globals';
import { alp, init, pco } from '../../../js/index.js';
import * as bpcells from '../../../js/bpcells/index.js';
import { openFile } from '../../../js/io/index.js';
import * as parquet from '../../../js/parquet.js';
import { bytesOf, corpusRoot, pcoCases, pcoDir, readBytes } from '../helpers/corpus.js';
import path from 'node:path';

const pcoCase = pcoCases().find((c) => c.format === 'standalone' && c.dtype === 'f64' && c.expected !== null && c.n > 0);
const alpDir = path.join(corpusRoot, 'alp');

beforeAll(async () => {
  await init();
});

// A copy of `typed` whose buffer has been transferred away.
function detached(typed) {
  const copy = typed.slice();
  structuredClone(copy.buffer, { transfer: [copy.buffer] });
  expect(copy.byteLength).toBe(0);
  return copy;
}

const DETACHED = /its ArrayBuffer was detached \(moved by postMessage or transfer\(\)\), so it holds no bytes/;

test('Pco: bytes, out and values to encode', async () => {
  const bytes = readBytes(pcoDir, pcoCase.file);
  const want = readBytes(pcoDir, pcoCase.expected);
  const values = pco.decode(bytes);
  expect(Buffer.from(bytesOf(values)).equals(Buffer.from(want))).toBe(true);
  for (const [call, what] of [
    [() => pco.decode(detached(bytes)), 'pco.decode: bytes'],
    [() => pco.inspect(detached(bytes)), 'pco.inspect: bytes'],
    [() => pco.decodeView(detached(bytes)), 'pco.decodeView: bytes'],
    [() => pco.decodeInto(detached(bytes), new Float64Array(pcoCase.n)), 'pco.decodeInto: bytes'],
    [() => pco.decodeInto(bytes, detached(new Float64Array(pcoCase.n))), 'pco.decodeInto: out'],
    [() => pco.decode(detached(bytes).buffer), 'pco.decode: bytes'],
  ]) {
    expect(call).toThrow(TypeError);
    expect(call).toThrow(what);
    expect(call).toThrow(DETACHED);
  }
  await expect(pco.encode(detached(values))).rejects.toThrow(/^pco\.encode: values: its ArrayBuffer was detached/);
  await expect(pco.encodeWrapped(detached(values))).rejects.toThrow(/^pco\.encodeWrapped: values: its ArrayBuffer was detached/);
  const out = new Float64Array(pcoCase.n);
  pco.decodeInto(bytes, out);
  expect(Buffer.from(bytesOf(out)).equals(Buffer.from(want))).toBe(true);
  expect(Buffer.from(bytesOf(pco.decode(await pco.encode(values)))).equals(Buffer.from(want))).toBe(true);
});

test('ALP: bytes, out and values to encode', () => {
  const page = readBytes(alpDir, 'f32_bw32_n2048.alp');
  const want = readBytes(alpDir, 'f32_bw32_n2048.bin');
  const values = alp.decode(page, 'f32');
  expect(Buffer.from(bytesOf(values)).equals(Buffer.from(want))).toBe(true);
  for (const [call, what] of [
    [() => alp.decode(detached(page), 'f32'), 'alp.decode: bytes'],
    [() => alp.decodeInto(detached(page), new Float32Array(2048)), 'alp.decodeInto: bytes'],
    [() => alp.decodeInto(page, detached(new Float32Array(2048))), 'alp.decodeInto: out'],
    [() => alp.encode(detached(values)), 'alp.encode: values'],
  ]) {
    expect(call).toThrow(TypeError);
    expect(call).toThrow(what);
    expect(call).toThrow(DETACHED);
  }
  const out = new Float32Array(2048);
  alp.decodeInto(page, out);
  expect(Buffer.from(bytesOf(out)).equals(Buffer.from(want))).toBe(true);
});

test('containers: a file given as bytes (openFile, bpcells.open, parquet.read)', async () => {
  const h5 = readBytes(path.join(corpusRoot, 'bpcells-hdf5'), 'unpacked_uint_col_chunk256/matrix.h5');
  const file = openFile(h5);
  expect(Array.from(await file.read(0, 8))).toEqual([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]); // the HDF5 signature
  expect(() => openFile(detached(h5))).toThrow(/^openFile: the bytes given: its ArrayBuffer was detached/);
  expect(() => openFile(detached(h5).buffer)).toThrow(DETACHED);
  await expect(bpcells.open(detached(h5), { group: 'mat' })).rejects.toThrow(DETACHED);
  const pq = readBytes(path.join(corpusRoot, 'parquet-alp'), 'alp_arade.parquet');
  await expect(parquet.read(detached(pq))).rejects.toThrow(DETACHED);
  expect((await parquet.read(pq)).numRows).toBeGreaterThan(0);
});
