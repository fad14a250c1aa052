// A read from a local folder on this thread (issue 31): pcodec chunks are lent from LocalStore's one
// reused buffer (readView) or a reader thread's slots (js/io/read-ahead.js), consumed before the next is read, instead of a fresh array per chunk
// (t2m's 1920 small chunks left ~6 MB of garbage over the output in bench/memory-reads.mjs); a
// shard's chunks are read into one buffer per read (readInto), not a fresh array per range.
import { expect, test } from '@jest/globals';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as zarr from 'zarrita';
import { init } from '../../../js/index.js';
import { LocalStore, read } from '../../../js/zarr.js';
import { READ_AHEAD_MIN_FILES } from '../../../js/io/read-ahead.js';
import { execFileSync } from 'node:child_process';
import { corpusRoot, projectRoot } from '../helpers/corpus.js';

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
  // Read here (96 and 18 chunk files: too few for the reader thread; see below); missing chunks are
  // asked for too (and are undefined).
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

// t2m's real chunk files tiled three times along time: 288 chunk files (one missing three times),
// enough for the reader thread (js/io/read-ahead.js).
function tiledT2m() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'numdecode-read-ahead-zarr-'));
  const from = path.join(store, 't2m');
  const meta = JSON.parse(readFileSync(path.join(from, 'zarr.json'), 'utf8'));
  meta.shape[0] *= 3;
  mkdirSync(path.join(dir, 't2m'), { recursive: true });
  writeFileSync(path.join(dir, 'zarr.json'), readFileSync(path.join(store, 'zarr.json')));
  writeFileSync(path.join(dir, 't2m', 'zarr.json'), JSON.stringify(meta));
  for (const t of readdirSync(path.join(from, 'c'))) {
    for (const copy of [0, 1, 2]) {
      for (const i of readdirSync(path.join(from, 'c', t))) {
        const to = path.join(dir, 't2m', 'c', String(Number(t) + 24 * copy), i);
        mkdirSync(to, { recursive: true });
        for (const j of readdirSync(path.join(from, 'c', t, i))) copyFileSync(path.join(from, 'c', t, i, j), path.join(to, j));
      }
    }
  }
  return dir;
}

test('288 chunk files: read ahead by the reader thread, each lent once, values as zarrita\'s; a damaged one named; the reader let go after a failure', async () => {
  await init({ formats: ['pco'] });
  const { registerPcodec } = await import('../../../js/zarr.js');
  registerPcodec(zarr.registry);
  const dir = tiledT2m();
  try {
    const counting = new CountingStore(dir);
    const arr = await zarr.open.v3(zarr.root(counting).resolve('t2m'), { kind: 'array' });
    expect(arr.shape).toEqual([72, 181, 360]);
    const chunks = 72 * 2 * 2;
    expect(chunks).toBeGreaterThanOrEqual(READ_AHEAD_MIN_FILES);
    const ours = await read(arr);
    expect({ files: counting.files, views: counting.views }).toEqual({ files: chunks, views: 0 });
    const theirs = await zarr.get(await zarr.open.v3(zarr.root(new LocalStore(dir)).resolve('t2m'), { kind: 'array' }));
    // readAhead: false: the same values, every file read on this thread.
    const here = new CountingStore(dir, { readAhead: false });
    expect(here.readAhead).toBe(false);
    const plain = await read(await zarr.open.v3(zarr.root(here).resolve('t2m'), { kind: 'array' }));
    expect({ files: here.files, views: here.views }).toEqual({ files: 0, views: chunks });
    expect(Buffer.from(plain.data.buffer).equals(Buffer.from(ours.data.buffer))).toBe(true);
    const bits = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    expect(bits(ours.data).equals(bits(theirs.data))).toBe(true);
    // A selection (a step on time, part of latitude): still in the order the reader reads them.
    const selection = [zarr.slice(1, 70, 2), zarr.slice(40, 150), null];
    const part = await read(arr, { selection });
    expect(bits(part.data).equals(bits((await zarr.get(arr, selection)).data))).toBe(true);
    // A damaged chunk file: named; then the reader serves the next read (not left busy).
    // (Early in the read, so that the read ends with most of its chunks not yet asked for.)
    truncateSync(path.join(dir, 't2m/c/3/1/1'), 100);
    await expect(read(arr)).rejects.toMatchObject({ code: 'ERR_BAD_DATA', file: '/t2m/c/3/1/1', array: '/t2m' });
    const before = counting.files;
    const again = await read(arr, { selection: [zarr.slice(4, 72), null, null] });
    expect(counting.files - before).toBe(68 * 2 * 2);
    expect(bits(again.data).equals(bits(theirs.data.subarray(4 * 181 * 360)))).toBe(true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the reader thread, idle after a read, holds nothing of it: the output is collectable at once', () => {
  const dir = tiledT2m();
  try {
    // In a process of its own with --expose-gc, within the reader's 2 s of idling.
    const script = `
      import * as zarr from 'zarrita';
      import { init } from './js/index.js';
      import { LocalStore, read, registerPcodec } from './js/zarr.js';
      await init({ formats: ['pco'] });
      registerPcodec(zarr.registry);
      const arr = await zarr.open.v3(zarr.root(new LocalStore(${JSON.stringify(dir)})).resolve('t2m'), { kind: 'array' });
      let out = (await read(arr)).data;
      const ref = new WeakRef(out);
      out = null;
      await new Promise((r) => setTimeout(r, 0));
      globalThis.gc();
      await new Promise((r) => setTimeout(r, 0));
      globalThis.gc();
      console.log(JSON.stringify({ collected: ref.deref() === undefined }));
    `;
    const printed = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { cwd: projectRoot, encoding: 'utf8', timeout: 60_000 });
    expect(JSON.parse(printed.trim().split('\n').pop())).toEqual({ collected: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
