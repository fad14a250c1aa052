// LocalStore's byte-range reads, the ones a read's workers use on shard files (readRangeView) and
// the calling thread on shard ranges (readInto): exactly the bytes asked for, fewer only where the
// file ends, nothing for a file that is not there, and keys outside the folder refused.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalStore } from '../../../js/zarr.js';

let dir;
let store;
// A file whose every byte says where it is (mod 251, a prime, so no power-of-two period).
const small = Uint8Array.from({ length: 70_000 }, (_, i) => i % 251);
const large = Uint8Array.from({ length: (3 << 20) + 17 }, (_, i) => (i * 7) % 251); // over the 1 MiB lent buffer

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'numdecode-local-store-'));
  mkdirSync(path.join(dir, 'a', 'c'), { recursive: true });
  writeFileSync(path.join(dir, 'a', 'c', '0'), small);
  writeFileSync(path.join(dir, 'a', 'c', '1'), large);
  store = new LocalStore(dir, { readAhead: false });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('readRangeView: exactly [offset, offset + length), at the start, inside, at the end and past it', () => {
  const cases = [
    ['/a/c/0', 0, 1],
    ['/a/c/0', 0, 4096],
    ['/a/c/0', 12_345, 999],
    ['/a/c/0', small.length - 10, 10],
    ['/a/c/1', 5, 1 << 20], // exactly the lent buffer
    ['/a/c/1', 1_000_003, (1 << 20) + 1], // one byte more: a fresh array
    ['/a/c/1', large.length - 100, 100],
  ];
  for (const [key, offset, length] of cases) {
    const file = key.endsWith('0') ? small : large;
    const got = store.readRangeView(key, offset, length);
    expect({ key, offset, length: got.length }).toEqual({ key, offset, length });
    expect(Buffer.from(got).equals(Buffer.from(file.subarray(offset, offset + length)))).toBe(true);
  }
  // Past the end: the bytes that are there, no more.
  expect(store.readRangeView('/a/c/0', small.length - 3, 10)).toEqual(small.subarray(small.length - 3));
  expect(store.readRangeView('/a/c/0', small.length + 5, 10).length).toBe(0);
});

test('readRangeView lends one buffer (valid until the next call); over 1 MiB a fresh array', () => {
  const first = store.readRangeView('/a/c/0', 0, 100);
  const second = store.readRangeView('/a/c/0', 100, 100);
  expect(second.buffer).toBe(first.buffer);
  expect(Array.from(second.subarray(0, 3))).toEqual([100, 101, 102]);
  const big = store.readRangeView('/a/c/1', 0, (1 << 20) + 1);
  expect(big.buffer).not.toBe(first.buffer);
});

test('readInto fills exactly the target and says how many bytes were there', () => {
  const target = new Uint8Array(5000).fill(0xee);
  expect(store.readInto('/a/c/0', 1000, target.subarray(0, 4000))).toBe(4000);
  expect(Buffer.from(target.subarray(0, 4000)).equals(Buffer.from(small.subarray(1000, 5000)))).toBe(true);
  expect(Array.from(target.subarray(4000, 4003))).toEqual([0xee, 0xee, 0xee]); // nothing past the target
  expect(store.readInto('/a/c/0', small.length - 2, target)).toBe(2);
});

test('a file that is not there is undefined; a key outside the folder is refused', () => {
  expect(store.readRangeView('/a/c/9', 0, 10)).toBeUndefined();
  expect(store.readInto('/a/c/9', 0, new Uint8Array(4))).toBeUndefined();
  expect(() => store.readRangeView('/../outside', 0, 10)).toThrow(/outside/);
});

test("a directory where a value is asked for is named as one (not Node's bare EISDIR), by every read", async () => {
  const named = { code: 'ERR_BAD_DATA', file: '/a/c', message: expect.stringMatching(/"\/a\/c" is a directory of .*not a stored value/) };
  for (const call of [() => store.readSync('/a/c'), () => store.readView('/a/c'), () => store.readRangeView('/a/c', 0, 10), () => store.readInto('/a/c', 0, new Uint8Array(4))]) {
    let err;
    try {
      call();
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject(named);
    expect(err.cause.code).toBe('EISDIR');
  }
  await expect(store.get('/a/c')).rejects.toMatchObject(named);
  await expect(store.getRange('/a/c', { offset: 0, length: 4 })).rejects.toMatchObject(named);
  // a file beside it still reads
  expect((await store.get('/a/c/0')).length).toBe(small.length);
});

test('a FIFO where a file should be is refused at once, not waited on (open() of a FIFO blocks a thread for good)', async () => {
  const fifo = path.join(dir, 'a', 'c', '7');
  execFileSync('mkfifo', [fifo]);
  try {
    for (const call of [() => store.readSync('/a/c/7'), () => store.readView('/a/c/7'), () => store.readInto('/a/c/7', 0, new Uint8Array(4))]) {
      let err;
      try {
        call();
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ code: 'ERR_BAD_DATA', file: '/a/c/7', message: expect.stringMatching(/is not a regular file/) });
    }
    // the io layer's files too (BPCells directories, Parquet paths): named as what they are
    const { openFile } = await import('../../../js/io/index.js');
    const file = openFile(fifo);
    await expect(file.read(0, 4)).rejects.toMatchObject({ code: 'ERR_BAD_DATA', message: expect.stringMatching(/FIFO, socket or device/) });
    file.close();
  } finally {
    rmSync(fifo, { force: true });
  }
});

// A key's file: a plain key ("/t2m/c/0/1") is joined to the folder directly, any other resolved
// as path.resolve does; either way, one outside the folder is refused. Checked against
// path.resolve on written keys and 2 000 random ones made of parts that include "", "." and "..".
test('fileOf: every key names the file path.resolve would, inside the folder or refused', () => {
  const parts = ['a', 'c', '0', '17', '', '.', '..', '...', '.hidden', 'x..', '..y'];
  let seed = 7;
  const next = (n) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const keys = ['/t2m/c/0/1', 'c/0', '/../x', 'a//b', 'a/', '/a/./b', '/a/../b', '/a/b/..', '', '/', '//a', '..', '.'];
  for (let i = 0; i < 2000; i++) keys.push((next(2) ? '/' : '') + Array.from({ length: 1 + next(4) }, () => parts[next(parts.length)]).join('/'));
  for (const root of [dir, '/']) {
    const at = new LocalStore(root, { readAhead: false });
    const inside = root === '/' ? '/' : at.root + path.sep;
    for (const key of keys) {
      const resolved = path.resolve(at.root, `.${key.startsWith('/') ? '' : '/'}${key}`);
      const expected = resolved === at.root || resolved.startsWith(inside) ? resolved : null;
      let got;
      try {
        got = at.fileOf(key);
      } catch (err) {
        expect(err).toMatchObject({ code: 'ERR_BAD_DATA', message: expect.stringMatching(/points outside/) });
        got = null;
      }
      if (got !== expected) throw new Error(`root ${root}, key ${JSON.stringify(key)}: got ${got}, path.resolve says ${expected}`);
    }
  }
  // and a plain key reads its file
  expect(new LocalStore(dir, { readAhead: false }).readSync('a/c/0')).toEqual(small);
});
