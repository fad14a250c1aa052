// A read from a local folder on this thread (issue 31): pcodec chunks are lent from LocalStore's one
// reused buffer (readView) or a reader thread's slots (js/io/read-ahead.js), consumed before the next is read, instead of a fresh array per chunk
// (t2m's 1920 small chunks left ~6 MB of garbage over the output in bench/memory-reads.mjs); a
// shard's chunks are read into one buffer per read (readInto), not a fresh array per range.
import { expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as zarr from 'zarrita';
import { init } from '../../../js/index.js';
import { LocalStore, read } from '../../../js/zarr.js';
import { READ_AHEAD_MIN_FILES } from '../../../js/io/read-ahead.js';
import { corpusRoot } from '../helpers/corpus.js';

const store = path.join(corpusRoot, 'zarr-pcodec', 'stores', 'era5_like_v3.zarr');

// LocalStore counting its reads by kind.
class CountingStore extends LocalStore {
  gets = [];
  views = 0;
  get(key, options) {
    this.gets.push(key);
    return super.get(key, options);
  }
  readView(key) {
    this.views++;
    return super.readView(key);
  }
  ranges = [];
  getRange(key, range, options) {
    this.ranges.push(range);
    return super.getRange(key, range, options);
  }
  files = 0; // paths asked for by the reader thread (js/io/read-ahead.js)
  fileOf(key) {
    this.files++;
    return super.fileOf(key);
  }
  intos = 0;
  readInto(key, offset, target) {
    this.intos++;
    return super.readInto(key, offset, target);
  }
}

test.each(['t2m', 'tp'])('%s: every chunk is lent, none copied out, and the values are zarrita\'s', async (name) => {
  await init({ formats: ['pco'] });
  const { registerPcodec } = await import('../../../js/zarr.js');
  registerPcodec(zarr.registry);
  const counting = new CountingStore(store);
  const arr = await zarr.open.v3(zarr.root(counting).resolve(name), { kind: 'array' });
  const ours = await read(arr);
  const chunks = arr.shape.reduce((n, s, d) => n * Math.ceil(s / arr.chunks[d]), 1);
  // Lent by the reader thread (js/io/read-ahead.js: t2m's 96 chunks) or read here (tp's 18, too few
  // for it); missing chunks are asked for too (and are undefined).
  const ahead = chunks >= READ_AHEAD_MIN_FILES;
  expect({ files: counting.files, views: counting.views }).toEqual(ahead ? { files: chunks, views: 0 } : { files: 0, views: chunks });
  expect(counting.gets.filter((key) => !/(zarr\.json|\.zarray|\.zattrs|\.zgroup)$/.test(key))).toEqual([]); // metadata only
  const theirs = await zarr.get(await zarr.open.v3(zarr.root(new LocalStore(store)).resolve(name), { kind: 'array' }));
  expect(ours.shape).toEqual(theirs.shape);
  const bits = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  expect(bits(ours.data).equals(bits(theirs.data))).toBe(true); // NaN fill values too, bit for bit
});

test('sharded counts: only the shard indexes come as arrays, the chunks are read into one buffer per read', async () => {
  await init({ formats: ['pco'] });
  const dir = path.join(corpusRoot, 'zarr-pcodec', 'stores', 'sharded_v3.zarr');
  const counting = new CountingStore(dir);
  const arr = await zarr.open.v3(zarr.root(counting).resolve('counts'), { kind: 'array' });
  const ours = await read(arr);
  const meta = JSON.parse(readFileSync(path.join(dir, 'counts', 'zarr.json'), 'utf8'));
  const shards = arr.shape.reduce((n, s, d) => n * Math.ceil(s / meta.chunk_grid.configuration.chunk_shape[d]), 1);
  expect(counting.ranges.length).toBe(shards);
  expect(counting.ranges.every((r) => 'suffixLength' in r)).toBe(true); // the indexes (at the end)
  expect(counting.intos).toBeGreaterThanOrEqual(shards); // each shard's chunks: one range or more
  // the same read through get / getRange alone (a store that lends nothing), chunk by chunk
  const plain = { get: (key, o) => counting.get(key, o), getRange: (key, r, o) => counting.getRange(key, r, o) };
  const theirs = await read(await zarr.open.v3(zarr.root(plain).resolve('counts'), { kind: 'array' }));
  expect(Buffer.from(ours.data.buffer).equals(Buffer.from(theirs.data.buffer))).toBe(true);
  expect(counting.ranges.length).toBeGreaterThan(2 * shards); // that read asked for its chunks by range
});
