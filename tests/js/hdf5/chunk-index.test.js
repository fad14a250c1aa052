// The chunk B-tree planner (js/hdf5/chunk-index.js) against HDF5 itself: over an async source, the
// nodes HDF5 reads are decoded, and every chunk the planner locates holds exactly the bytes HDF5
// returns for it; a damaged node decodes to nothing (a useless fetch at worst, never a value).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { corpusRoot } from '../helpers/corpus.js';
import { serveRange, startServer } from '../helpers/io-test-server.js';
import { openFile } from '../../../js/io/index.js';
import { openHdf5 } from '../../../js/hdf5/reader.js';
import { decodeChunkNode } from '../../../js/hdf5/chunk-index.js';

const h5 = path.join(corpusRoot, 'bpcells-hdf5', 'large_packed_uint_col_20000x2000', 'matrix.h5');
const body = new Uint8Array(readFileSync(h5));
let server;
let reader;

beforeAll(async () => {
  server = await startServer();
  server.handler = (req, res) => serveRange(req, res, body);
  const file = openFile(`${server.base}/matrix.h5`, { cacheBytes: 0, gap: 0, blockSize: 0 });
  reader = await openHdf5(file, null);
});
afterAll(async () => {
  reader?.close();
  await server?.close();
});

describe('chunk B-tree planner', () => {
  test.each(['/mat/index_data', '/mat/val_data', '/mat/index_idx', '/mat/idxptr'])('%s: every chunk located holds what HDF5 reads there', async (p) => {
    const info = await reader.datasetInfo(p);
    const n = info.shape[0];
    const chunk = info.chunks[0];
    expect(reader.index.knows(p)).toBe(false);
    const all = await reader.readElements(p, info, 0, n);
    expect(reader.index.knows(p)).toBe(true);
    const chunks = Math.ceil(n / chunk);
    for (let c = 0; c < chunks; c++) {
      const where = reader.index.locate(p, c * chunk + (c % 7), chunk);
      expect(where?.chunk).toBeDefined();
      const [s, e] = where.chunk;
      expect(e - s).toBe(chunk * info.size); // unfiltered: a whole chunk is stored, even the last
      const want = all.subarray(c * chunk * info.size, Math.min(n, (c + 1) * chunk) * info.size);
      expect(Buffer.from(body.subarray(s, s + want.length)).equals(Buffer.from(want))).toBe(true);
    }
    // Past the last chunk there is none; nothing left to plan for a read whose chunks are cached.
    expect(reader.index.locate(p, chunks * chunk, chunk)).toBeNull();
    expect(reader.index.plan(p, chunk, 0, n)).toEqual([]);
  });

  test('over HTTP, a damaged chunk B-tree ends in an Hdf5Error naming the dataset, after a bounded fetch', async () => {
    const root = reader.index.roots.get('/mat/index_data');
    const bad = body.slice();
    // Child 1 of index_data's root points at the superblock: not a B-tree node.
    new DataView(bad.buffer).setBigUint64(root.address + 24 + 2 * 24 + 8, 0n, true);
    server.handler = (req, res) => serveRange(req, res, bad);
    const file = openFile(`${server.base}/bad.h5`, { cacheBytes: 0, gap: 0, blockSize: 0 });
    const r = await openHdf5(file, null);
    try {
      const info = await r.datasetInfo('/mat/index_data');
      expect(Buffer.from(await r.readElements('/mat/index_data', info, 0, 10)).equals(Buffer.from(body.subarray(13616, 13656)))).toBe(true);
      server.handler = (req, res) => serveRange(req, res, bad);
      const err = await r.readElements('/mat/index_data', info, 60000, 60010).catch((e) => e);
      expect(err.name).toBe('Hdf5Error');
      expect(err.dataset).toBe('/mat/index_data');
      const sent = server.state.log.reduce((n, x) => {
        const [, a, b] = /^bytes=(\d+)-(\d+)$/.exec(x.range);
        return n + Number(b) - Number(a) + 1;
      }, 0);
      expect(sent).toBeLessThan(16384);
    } finally {
      r.close();
      server.handler = (req, res) => serveRange(req, res, body);
    }
  });

  test('a damaged node decodes to nothing', () => {
    const root = reader.index.roots.get('/mat/index_data');
    const bytes = body.slice(root.address, root.address + root.length);
    const node = decodeChunkNode(bytes, 1, body.length);
    expect(node.level).toBe(1);
    expect(node.keys[0]).toBe(0);
    expect(node.keys.length).toBe(10); // 541 chunks of index_data under 10 leaves
    const badSig = bytes.slice();
    badSig[0] = 0;
    expect(decodeChunkNode(badSig, 1, body.length)).toBeNull();
    const badAddr = bytes.slice();
    badAddr.fill(0xff, 24 + 24, 24 + 32); // child 0 beyond the file's end
    expect(decodeChunkNode(badAddr, 1, body.length)).toBeNull();
    const badKeys = bytes.slice();
    badKeys.fill(0, 24 + 32 + 8, 24 + 32 + 16); // key 1's offset back to 0: not increasing
    expect(decodeChunkNode(badKeys, 1, body.length)).toBeNull();
  });
});
