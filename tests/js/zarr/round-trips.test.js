// Round trips of a Zarr viewer from nothing (issue 27), counted as waves by the loopback test
// server (requests that arrive while none is being answered; every answer held back a little, so
// that requests sent together arrive in one wave): the store's v3 and v2 root documents asked for
// together, never v2's 404s one after another before a v3 store opens; then all chunks of a slice at once.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import path from 'node:path';
import { init } from '../../../js/index.js';
import { openZarr } from '../../../js/zarr-explore/explorer.js';
import { corpusRoot, readBytes, readJson } from '../helpers/corpus.js';
import { serveDirectory, startServer } from '../helpers/io-test-server.js';

const storesDir = path.join(corpusRoot, 'zarr-pcodec', 'stores');
const manifest = readJson(path.join(corpusRoot, 'zarr-pcodec'), 'expected/manifest.json');
let server;

beforeAll(async () => {
  await init();
  server = await startServer();
  server.delay = 40; // longer than the client's CPU between the requests of one wave, on a loaded machine too
});
afterAll(() => server?.close());

// Files of the corpus stores by URL path; 404 for what is not there.
const serveStores = (req, res) => serveDirectory(req, res, storesDir);

const paths = () => server.state.log.map((r) => new URL(r.url, 'http://x').pathname);

describe('from nothing to a slice', () => {
  test('v3, consolidated: open the store and read a 2-D slice of 4 chunks in 2 round trips', async () => {
    server.handler = serveStores;
    const store = await openZarr(`${server.base}/era5_like_v3.zarr`);
    // Wave 1: the root's zarr.json and .zmetadata together; the consolidated zarr.json holds the rest.
    expect(server.state.waves).toBe(1);
    expect(paths().sort()).toEqual(['/era5_like_v3.zarr/.zmetadata', '/era5_like_v3.zarr/zarr.json']);
    // Rows 80..99 and columns 170..189 of time 3 cross 2 x 2 chunks of 91 x 180.
    const got = await store.read('/t2m', '3,80:100,170:190');
    expect(server.state.waves).toBe(2); // target 3 (issue 27); zarrita alone takes 6.8
    expect(paths().slice(2).sort()).toEqual(['/era5_like_v3.zarr/t2m/c/3/0/0', '/era5_like_v3.zarr/t2m/c/3/0/1', '/era5_like_v3.zarr/t2m/c/3/1/0', '/era5_like_v3.zarr/t2m/c/3/1/1']);
    // The values are the array's: the corpus' expected bytes pick the same box.
    const m = manifest.find((e) => e.store === 'era5_like_v3.zarr' && e.array === 't2m');
    const whole = await store.read('/t2m', '3');
    expect(got.shape).toEqual([20, 20]);
    for (let r = 0; r < 20; r++) {
      expect(Array.from(got.values.subarray(r * 20, r * 20 + 20))).toEqual(Array.from(whole.values.subarray((80 + r) * 360 + 170, (80 + r) * 360 + 190)));
    }
    expect(m.shape).toEqual([24, 181, 360]);
  });

  test('v2, consolidated: the same slice, no v3 request after the first wave', async () => {
    server.handler = serveStores;
    const store = await openZarr(`${server.base}/era5_like_v2.zarr`);
    expect(server.state.waves).toBe(1);
    const got = await store.read('/t2m', '3,80:100,170:190');
    expect(server.state.waves).toBe(2);
    expect(paths().filter((p) => p.endsWith('zarr.json'))).toEqual(['/era5_like_v2.zarr/zarr.json']);
    expect(got.shape).toEqual([20, 20]);
  });

  test('v3 without consolidated metadata: the array\'s zarr.json is fetched once, then its shards\' indexes together, then their chunks', async () => {
    server.handler = serveStores;
    const store = await openZarr(`${server.base}/sharded_v3.zarr`, { hints: ['labels_index_start'] });
    const opened = server.state.waves;
    // The root's documents; the hinted array's zarr.json; the arrays its dimension names name (y, x: not there).
    expect(opened).toBe(3);
    // 200..330 x 200..330 touches 2 x 2 shards of 256 x 256 (index at the start of each).
    const got = await store.read('/labels_index_start', '200:330,200:330');
    expect(got.shape).toEqual([130, 130]);
    const log = paths();
    expect(log.filter((p) => p.endsWith('/labels_index_start/zarr.json'))).toHaveLength(1);
    expect(log.filter((p) => /\.zarray|\.zgroup|\.zattrs/.test(p))).toEqual([]);
    // One wave for the 4 indexes (range requests from byte 0), one for the 4 shards' chunk ranges.
    expect(server.state.waves - opened).toBe(2);
    const m = manifest.find((e) => e.array === 'labels_index_start');
    const all = new Uint32Array(readBytes(path.join(corpusRoot, 'zarr-pcodec'), m.bin).buffer);
    expect(got.values[0]).toBe(all[200 * 700 + 200]);
    expect(got.values[129 * 130 + 129]).toBe(all[329 * 700 + 329]);
  });
});
