// Over an async source (HTTP) the HDF5 calls of a pass run under one time-limit watchdog (handle.js
// _runBatch): a file that makes HDF5 loop still fails within the limit with a BpcellsError naming
// the dataset, and the next file reads exactly on a fresh runtime; the calls of the same pass behind
// the one that looped run again there and read exactly.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { corpusRoot } from '../helpers/corpus.js';
import { serveRange, startServer } from '../helpers/io-test-server.js';
import * as bpcells from '../../../js/bpcells/index.js';
import { openHdf5 } from '../../../js/hdf5/reader.js';
import { openFile } from '../../../js/io/index.js';

const dir = path.join(corpusRoot, 'bpcells-hdf5', 'unpacked_uint_col_chunk256');
const good = new Uint8Array(readFileSync(path.join(dir, 'matrix.h5')));
// The region copy the mutation test found (tests/js/hdf5/bpcells-hdf5.test.js): HDF5 spins reading a string.
const bad = good.slice();
bad.copyWithin(52277, 35187, 35187 + 164);
let server;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

test('a file that makes HDF5 loop, over HTTP: fails within the time limit; the next file reads exactly', async () => {
  server.handler = (req, res) => serveRange(req, res, req.url.startsWith('/bad') ? bad : good);
  const t0 = Date.now();
  const err = await bpcells
    .open(`${server.base}/bad.h5`, { group: 'mat', hdf5TimeLimit: 1500 })
    .then((m) => Promise.all([m.read(), m.rowNames(), m.colNames()]))
    .catch((e) => e);
  expect(err).toBeInstanceOf(bpcells.BpcellsError);
  expect(err.message).toMatch(/HDF5 did not finish within 1500 ms .*likely damaged/);
  expect(err.file).toMatch(/^\/mat/);
  expect(Date.now() - t0).toBeLessThan(15000);
  const m = await bpcells.open(`${server.base}/good.h5`, { group: 'mat' });
  const local = await bpcells.open(path.join(dir, 'matrix.h5'), { group: 'mat' });
  const [r, want] = [await m.read(), await local.read()];
  expect(Buffer.from(r.index.buffer, r.index.byteOffset, r.index.byteLength).equals(Buffer.from(want.index.buffer, want.index.byteOffset, want.index.byteLength))).toBe(true);
  expect(Buffer.from(r.val.buffer, r.val.byteOffset, r.val.byteLength).equals(Buffer.from(want.val.buffer, want.val.byteOffset, want.val.byteLength))).toBe(true);
  expect(Array.from(r.idxptr)).toEqual(Array.from(want.idxptr));
  m.close();
  local.close();
}, 60000);

test('over HTTP, the calls of a pass behind one that loops run again on a fresh runtime and read exactly', async () => {
  server.handler = (req, res) => serveRange(req, res, bad);
  const remote = await openHdf5(openFile(`${server.base}/bad.h5`), null, { timeLimit: 1000 });
  const local = await openHdf5(openFile(path.join(dir, 'matrix.h5')));
  const names = ['/mat/idxptr', '/mat/index', '/mat/val'];
  const storageOrder = await remote.datasetInfo('/mat/storage_order');
  const infos = await Promise.all(names.map((name) => remote.datasetInfo(name)));
  // Issued together, the string read (which loops) first: one pass runs them in this order. Four
  // more reads of the same string fail with it, without a time limit each (HDF5 would loop again).
  const t0 = Date.now();
  const [looped, ...rest] = await Promise.allSettled([
    remote.readStrings('/mat/storage_order', storageOrder),
    ...names.map((name, i) => remote.readElements(name, infos[i], 0, infos[i].total_size)),
    ...Array.from({ length: 4 }, () => remote.readStrings('/mat/storage_order', storageOrder)),
  ]);
  expect(Date.now() - t0).toBeLessThan(4000); // one time limit, not five
  const reads = rest.slice(0, names.length);
  for (const r of [looped, ...rest.slice(names.length)]) {
    expect(r.status).toBe('rejected');
    expect(r.reason.message).toMatch(/^\/mat\/storage_order: HDF5 did not finish within 1000 ms .*likely damaged/);
    expect(r.reason.dataset).toBe('/mat/storage_order');
  }
  for (const [i, name] of names.entries()) {
    expect(reads[i].status).toBe('fulfilled');
    const info = await local.datasetInfo(name);
    const want = await local.readElements(name, info, 0, info.total_size);
    expect(reads[i].value.length).toBeGreaterThan(0);
    expect(Array.from(reads[i].value)).toEqual(Array.from(want));
  }
  remote.close();
  local.close();
}, 60000);
