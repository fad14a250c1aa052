// What the demo makes of a folder picked (webkitRelativePath file lists) or dropped (directory
// entries): the same decision both ways (web/lib/picked-files.js chooseFolder), checked here on
// folder layouts built in memory; the Chromium tests open real corpus folders both ways.
import { describe, expect, test } from '@jest/globals';
import { pickedFolder, readDroppedFolder } from '../../../web/lib/picked-files.js';

// A folder as nested objects: {name: {...}} a folder, {name: 'text'} a file.
const LAYOUTS = {
  'a store at the top': { 'zarr.json': '{}', t2m: { 'zarr.json': '{}', c: { 0: 'x' } } },
  'a matrix at the top': { version: 'v2', shape: 's', idxptr: 'i' },
  'a matrix and a store inside: the matrix': { matrix: { version: 'v2', shape: 's' }, 'w.zarr': { 'zarr.json': '{}' }, 'notes.txt': 'n' },
  'a matrix folder of another name': { counts: { version: 'v2', shape: 's' } },
  'a store inside, and a matrix folder without its version: the store': { matrix: { shape: 's' }, 'w.zarr': { '.zgroup': '{}', a: { '.zarray': '{}', 0: 'x' } }, '.DS_Store': 'd' },
  'a consolidated v2 store inside': { 'w.zarr': { '.zmetadata': '{}' } },
  'two stores inside': { 'b.zarr': { 'zarr.json': '{}' }, 'a.zarr': { 'zarr.json': '{}' } },
  'a store two folders down: not looked for': { data: { 'w.zarr': { 'zarr.json': '{}' } }, 'readme.md': 'r' },
  'an empty folder': {},
};

const WANT = {
  'a store at the top': { zarr: ['top/t2m/c/0', 'top/t2m/zarr.json', 'top/zarr.json'] },
  'a matrix at the top': { files: ['idxptr', 'shape', 'version'] },
  'a matrix and a store inside: the matrix': { files: ['shape', 'version'] },
  'a matrix folder of another name': { files: ['shape', 'version'] },
  'a store inside, and a matrix folder without its version: the store': { zarr: ['w.zarr/.zgroup', 'w.zarr/a/.zarray', 'w.zarr/a/0'] },
  'a consolidated v2 store inside': { zarr: ['w.zarr/.zmetadata'] },
  'two stores inside': { error: 'the folder holds 2 Zarr stores (a.zarr, b.zarr): open one of them' },
  'a store two folders down: not looked for': { files: ['readme.md'] },
  'an empty folder': { files: [] },
};

// The files a folder picker gives: every file below, named "top/a/b" in webkitRelativePath.
function pickerFiles(tree, prefix = 'top') {
  return Object.entries(tree).flatMap(([name, v]) =>
    typeof v === 'string' ? [new File([v], name, { type: '' })].map((f) => Object.defineProperty(f, 'webkitRelativePath', { value: `${prefix}/${name}` })) : pickerFiles(v, `${prefix}/${name}`),
  );
}

// The directory entry a drop gives (at most 2 entries a readEntries call, to page through);
// `asked.files` counts the File objects asked for.
function dropEntry(name, tree, asked = { files: 0 }) {
  return {
    name,
    isDirectory: true,
    isFile: false,
    createReader() {
      const all = Object.entries(tree).map(([n, v]) =>
        typeof v === 'string'
          ? { name: n, isFile: true, isDirectory: false, file: (ok) => setTimeout(() => ok(new File([v], n)), asked.files++) }
          : dropEntry(n, v, asked),
      );
      let at = 0;
      return { readEntries: (ok) => setTimeout(() => ok(all.slice(at, (at += 2)))) };
    },
  };
}

async function outcome(get) {
  try {
    const r = await get();
    if (r.zarr) return { zarr: r.zarr.map((x) => x.path).sort() };
    return { files: r.files.map((f) => f.name).sort() };
  } catch (err) {
    return { error: err.message };
  }
}

describe.each(Object.keys(LAYOUTS))('%s', (layout) => {
  test('picked and dropped alike', async () => {
    const picked = await outcome(async () => pickedFolder(pickerFiles(LAYOUTS[layout])));
    const dropped = await outcome(() => readDroppedFolder(dropEntry('top', LAYOUTS[layout])));
    expect(picked).toEqual(WANT[layout]);
    expect(dropped).toEqual(WANT[layout]);
  });
});

test('a dropped store is read lazily: a file is asked for when the store opens it, once', async () => {
  const asked = { files: 0 };
  const { zarr } = await readDroppedFolder(dropEntry('top', { 'w.zarr': { 'zarr.json': '{"a":1}', c: { 0: 'x', 1: 'y' } } }, asked));
  expect(zarr.map((x) => x.path).sort()).toEqual(['w.zarr/c/0', 'w.zarr/c/1', 'w.zarr/zarr.json']);
  expect(asked.files).toBe(0);
  const meta = zarr.find((x) => x.path === 'w.zarr/zarr.json');
  expect(await (await meta.open()).text()).toBe('{"a":1}');
  await meta.open();
  expect(asked.files).toBe(1);
});
