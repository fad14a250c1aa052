// readAhead (js/io/read-ahead.js) over a LocalStore's files: a reader thread reads a folder's files, in the
// caller's order, into two shared slots; every file comes out as on disk (also across slots and
// windows, too big for a slot, empty, missing), a second reader is refused while one is busy, and
// one closed halfway leaves the thread ready for the next.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { READ_AHEAD_MIN_FILES, readAhead } from '../../../js/io/read-ahead.js';
import { LocalStore } from '../../../js/zarr.js';

let dir;
let store;
const keys = [];

// Deterministic bytes of a given length (a file's content tells its own key and size apart).
function content(seed, length) {
  const out = new Uint8Array(length);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'numdecode-read-ahead-'));
  mkdirSync(path.join(dir, 'a', 'c'), { recursive: true });
  // 300 files: small ones, ones that overflow the room a slot has left (400 kB), ones larger than a
  // slot (700 kB: read on the calling thread), empty ones, and keys with no file.
  for (let i = 0; i < 300; i++) {
    const key = `/a/c/${i}`;
    keys.push(key);
    if (i % 37 === 5) continue; // missing
    const length = i % 50 === 7 ? 700_000 : i % 23 === 3 ? 400_000 : i % 41 === 9 ? 0 : 100 + ((i * 7919) % 30_000);
    writeFileSync(path.join(dir, key), content(i, length));
  }
  store = new LocalStore(dir);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const readerOf = (keyIterator, count) => readAhead(keyIterator, count, (key) => store.fileOf(key), (key) => store.readView(key));

const onDisk = (key) => {
  try {
    return new Uint8Array(readFileSync(path.join(dir, key)));
  } catch {
    return undefined;
  }
};

function expectSameFile(got, key) {
  const want = onDisk(key);
  if (want === undefined) {
    expect({ key, got }).toEqual({ key, got: undefined });
    return;
  }
  expect({ key, length: got?.length }).toEqual({ key, length: want.length });
  expect(Buffer.from(got.buffer, got.byteOffset, got.byteLength).equals(Buffer.from(want))).toBe(true);
}

// A reader over `list`, every file of it read through and compared with the disk, then closed.
function expectEveryFile(list) {
  const ahead = readerOf(list[Symbol.iterator](), list.length);
  expect(ahead).not.toBeNull();
  try {
    for (const key of list) expectSameFile(ahead.next(key), key);
  } finally {
    ahead.close();
  }
}

test('every file as on disk, in order, across slots; missing ones undefined', () => {
  expectEveryFile(keys);
});

test('few files: no reader (the calling thread reads them)', () => {
  expect(readerOf(keys.slice(0, READ_AHEAD_MIN_FILES - 1)[Symbol.iterator](), READ_AHEAD_MIN_FILES - 1)).toBeNull();
});

test('one reader at a time; one closed halfway leaves the thread ready for the next', () => {
  const first = readerOf(keys[Symbol.iterator](), keys.length);
  expect(readerOf(keys[Symbol.iterator](), keys.length)).toBeNull(); // busy
  for (const key of keys.slice(0, 40)) expectSameFile(first.next(key), key);
  first.close();
  expect(() => first.next(keys[40])).toThrow(/closed/);
  expectEveryFile([...keys].reverse());
});

test('asked out of order: a clear error, not another file\'s bytes', () => {
  const ahead = readerOf(keys[Symbol.iterator](), keys.length);
  try {
    expectSameFile(ahead.next(keys[0]), keys[0]);
    expect(() => ahead.next(keys[2])).toThrow(`read ahead: asked for ${keys[2]}, the next file read is ${keys[1]}`);
  } finally {
    ahead.close();
  }
});

test('more files than a window (4096): later windows come right too', () => {
  const many = [];
  mkdirSync(path.join(dir, 'many'), { recursive: true });
  for (let i = 0; i < 4500; i++) {
    many.push(`/many/${i}`);
    writeFileSync(path.join(dir, 'many', String(i)), content(i + 1000, 8 + (i % 13)));
  }
  expectEveryFile(many);
});

test('a key outside the folder is refused before anything is read', () => {
  const bad = [...keys, '/../../etc/passwd'];
  const ahead = readerOf(bad[Symbol.iterator](), bad.length);
  try {
    expect(() => ahead.next(bad[0])).toThrow(/points outside/);
  } finally {
    ahead.close();
  }
  const again = readerOf(keys[Symbol.iterator](), keys.length); // the thread is not left busy
  expect(again).not.toBeNull();
  again.close();
});
