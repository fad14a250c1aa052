// A trap in HDF5 (a WebAssembly.RuntimeError) leaves h5wasm's stack and heap where it stopped. A
// fault sweep found HDF5 trapping now and then on the error path of a read that found bytes
// missing (what every pass over a remote file meets); the pass was then treated as a plain miss,
// the runtime kept running, and ~130 reads later a call failed with "memory access out of
// bounds" and every open file with it, a local one too, as "damaged". Now the runtime is replaced
// and the operation runs again on the fresh one; files opened on the old one move at their next
// operation. The trap here is a real one (h5wasm's free() of an address past its memory), made
// inside the first dataset read of a remote matrix's open.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as bpcells from '../../../js/bpcells/index.js';
import { getRuntime } from '../../../js/hdf5/runtime.js';
import { corpusRoot } from '../helpers/corpus.js';
import { serveRange, startServer } from '../helpers/io-test-server.js';

const dir = path.join(corpusRoot, 'bpcells-hdf5', 'unpacked_uint_col_chunk256');
const file = path.join(dir, 'matrix.h5');
const bytesOf = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
let server;

beforeAll(async () => {
  server = await startServer();
  const body = new Uint8Array(readFileSync(file));
  server.handler = (req, res) => serveRange(req, res, body);
});
afterAll(() => server?.close());

// Makes the runtime's next dataset read trap (once): {traps(), restore()}.
function trapNextRead(rt) {
  const read = rt.Module.get_dataset_data;
  let traps = 0;
  rt.Module.get_dataset_data = function trapOnce(...args) {
    if (traps === 0) {
      traps += 1;
      rt.Module._free(rt.Module.HEAPU8.length + 4096); // out of bounds: a real trap
    }
    return read.apply(this, args);
  };
  return { traps: () => traps, restore: () => (rt.Module.get_dataset_data = read) };
}

const LARGE = path.join(corpusRoot, 'bpcells-hdf5', 'large_packed_uint_col_20000x2000', 'matrix.h5');

// Columns [a, b) of the large corpus matrix read by a matrix of its own (the expected values), and
// a matrix opened for the test with one read made (open's reads done: the next read's values come
// through the synchronous path).
async function largeMatrix(a, b) {
  const reference = await bpcells.open(LARGE);
  const want = await reference.read(a, b);
  reference.close();
  expect(want.index.length).toBeGreaterThan(1000);
  const local = await bpcells.open(LARGE);
  await local.read(0, 10);
  return { want, local };
}

const sameRead = (got, want) => ['idxptr', 'index', 'val'].every((key) => bytesOf(got[key]).equals(bytesOf(want[key])));

test('a trap during an open over HTTP: the call runs again on a fresh runtime and is exact; a local matrix opened before reads exactly after it', async () => {
  const local = await bpcells.open(file, { group: 'mat' });
  const want = await local.read();
  const old = await getRuntime();
  const trap = trapNextRead(old);
  let remote;
  try {
    remote = await bpcells.open(`${server.base}/matrix.h5`, { group: 'mat' }); // its first dataset read traps
    const got = await remote.read();
    expect(trap.traps()).toBe(1);
    expect(old.broken).toBeInstanceOf(WebAssembly.RuntimeError);
    expect(await getRuntime()).not.toBe(old);
    for (const key of ['index', 'val']) expect(bytesOf(got[key]).equals(bytesOf(want[key]))).toBe(true);
    expect(Array.from(got.idxptr)).toEqual(Array.from(want.idxptr));
    // The local matrix, opened on the runtime that trapped, moves to the fresh one.
    const again = await local.read(3, 9);
    const exact = await bpcells.open(file, { group: 'mat' });
    const ref = await exact.read(3, 9);
    for (const key of ['index', 'val']) expect(bytesOf(again[key]).equals(bytesOf(ref[key]))).toBe(true);
    exact.close();
  } finally {
    trap.restore();
    local.close();
    remote?.close();
  }
}, 60000);

test('a local packed matrix whose values HDF5 writes straight into the decoder (its seek tables held, no other HDF5 call before them) reads exactly after a trap on another file broke its runtime', async () => {
  const { want, local } = await largeMatrix(1500, 1540);
  const old = await getRuntime();
  const trap = trapNextRead(old);
  let remote;
  try {
    remote = await bpcells.open(`${server.base}/matrix.h5`, { group: 'mat' });
    expect(trap.traps()).toBe(1);
    expect(old.broken).toBeInstanceOf(WebAssembly.RuntimeError);
    expect(sameRead(await local.read(1500, 1540), want)).toBe(true); // not the words kept from the first read
  } finally {
    trap.restore();
    local.close();
    remote?.close();
  }
}, 60000);

test('a trap in a local matrix read whose values HDF5 writes straight into the decoder: the read runs again on a fresh runtime and is exact', async () => {
  const { want, local } = await largeMatrix(700, 760);
  const old = await getRuntime();
  const trap = trapNextRead(old);
  try {
    const got = await local.read(700, 760);
    expect(trap.traps()).toBe(1);
    expect(old.broken).toBeInstanceOf(WebAssembly.RuntimeError);
    expect(sameRead(got, want)).toBe(true);
  } finally {
    trap.restore();
    local.close();
  }
}, 60000);
