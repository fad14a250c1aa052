// A shard's index decides which bytes each chunk decodes from: a damaged one must fail by name,
// never give other chunks' values. The corpus' sharded labels (index at the end, with crc32c) are
// copied and their first shard's index damaged: entries swapped with the stored CRC-32C left as it
// was (zarrita reads those as wrong values), and an entry claiming 2^31 - 1 bytes with the CRC
// made to match (the read allocated what it claimed before finding the shard shorter).
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as zarr from 'zarrita';
import { init, ZarrError } from '../../../js/index.js';
import { LocalStore, read, readView } from '../../../js/zarr.js';
import { crc32c } from '../../../js/zarr/crc32c.js';
import { corpusRoot } from '../helpers/corpus.js';

const source = path.join(corpusRoot, 'zarr-pcodec', 'stores', 'sharded_v3.zarr');
let dir;
const shard = () => path.join(dir, 'labels', 'c', '0', '0');
const open = () => zarr.open(zarr.root(new LocalStore(dir)).resolve('labels'), { kind: 'array' });
const COUNT = 16; // 256 x 256 shards of 64 x 64 chunks

beforeAll(async () => {
  await init();
  dir = mkdtempSync(path.join(os.tmpdir(), 'numdecode-shard-index-'));
  cpSync(source, dir, { recursive: true });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The shard's bytes with its index (16 bytes an entry, then the CRC-32C) changed by damage(view).
function damageIndex(damage, { fixCrc }) {
  const original = readFileSync(path.join(source, 'labels', 'c', '0', '0'));
  const bytes = new Uint8Array(original);
  const at = bytes.length - (16 * COUNT + 4);
  const view = new DataView(bytes.buffer, at, 16 * COUNT + 4);
  damage(view);
  if (fixCrc) view.setUint32(16 * COUNT, crc32c(bytes.subarray(at, at + 16 * COUNT)), true);
  writeFileSync(shard(), bytes);
}

test('the CRC-32C of the corpus check value and of the intact shard index', () => {
  expect(crc32c(new TextEncoder().encode('123456789'))).toBe(0xe3069283);
  const bytes = new Uint8Array(readFileSync(path.join(source, 'labels', 'c', '0', '0')));
  const at = bytes.length - (16 * COUNT + 4);
  expect(crc32c(bytes.subarray(at, at + 16 * COUNT))).toBe(new DataView(bytes.buffer).getUint32(bytes.length - 4, true));
});

test('entries swapped, the stored CRC-32C left as it was: every reader refuses the shard by name, none returns values', async () => {
  damageIndex(
    (view) => {
      const first = [view.getBigUint64(0, true), view.getBigUint64(8, true)];
      view.setBigUint64(0, view.getBigUint64(16, true), true);
      view.setBigUint64(8, view.getBigUint64(24, true), true);
      view.setBigUint64(16, first[0], true);
      view.setBigUint64(24, first[1], true);
    },
    { fixCrc: false },
  );
  const arr = await open();
  for (const [what, call] of [
    ['read', () => read(arr)],
    ['readView', () => readView(arr)],
    ['workers', () => read(arr, { workers: 1 })],
  ]) {
    const err = await call().catch((e) => e);
    expect({ what, class: err?.constructor?.name, code: err?.code, file: err?.file, array: err?.array }).toEqual({ what, class: 'ZarrError', code: 'ERR_BAD_DATA', file: '/labels/c/0/0', array: '/labels' });
    expect(err.message).toMatch(/its shard index is damaged: its CRC-32C is [0-9a-f]{8}, the index stores [0-9a-f]{8}/);
  }
});

test('an entry claiming 2^31 - 1 bytes (CRC made to match): refused as damaged, without allocating what it claims', async () => {
  damageIndex((view) => view.setBigUint64(8, 2n ** 31n - 1n, true), { fixCrc: true });
  expect(statSync(shard()).size).toBeLessThan(10000);
  const before = process.memoryUsage().arrayBuffers;
  const err = await read(await open()).catch((e) => e);
  expect(err).toBeInstanceOf(ZarrError);
  expect(err).toMatchObject({ code: 'ERR_BAD_DATA', file: '/labels/c/0/0', array: '/labels' });
  expect(err.message).toMatch(/its shard index entry 0 \(offset \d+, length 2147483647\) is damaged/);
  expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 << 20);
});
