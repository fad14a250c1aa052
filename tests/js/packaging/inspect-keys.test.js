// What inspect() returns and what the .d.ts declares must agree: every key the runtime gives is
// declared, every required declared key is there (read from the declarations with the TypeScript
// compiler API, over the whole corpus). Also the 64-bit rule: bigint by type, never by size.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { alp, bpcells, init, pco } from '../../../js/index.js';
import { corpusRoot, pcoCases, pcoDir, projectRoot, readBytes, readJson } from '../helpers/corpus.js';

// interface name -> { all: Set, required: Set } from one .d.ts file.
function interfacesOf(file) {
  const src = ts.createSourceFile(file, readFileSync(path.join(projectRoot, file), 'utf8'), ts.ScriptTarget.Latest);
  const out = {};
  src.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node)) return;
    const all = new Set();
    const required = new Set();
    for (const m of node.members) {
      if (!m.name || !ts.isIdentifier(m.name)) continue;
      all.add(m.name.text);
      if (!m.questionToken) required.add(m.name.text);
    }
    out[node.name.text] = { all, required };
  });
  return out;
}

const declared = { ...interfacesOf('js/pco.d.ts'), ...interfacesOf('js/alp.d.ts'), ...interfacesOf('js/bpcells/index.d.ts') };
const problems = new Set();

function checkObject(value, iface, where) {
  const d = declared[iface];
  if (!d) throw new Error(`no interface ${iface} in the declarations`);
  for (const key of Object.keys(value)) if (!d.all.has(key)) problems.add(`${iface}.${key} returned but not declared (${where})`);
  for (const key of d.required) if (!(key in value)) problems.add(`${iface}.${key} declared but missing (${where})`);
}

function checkPco(info, where) {
  checkObject(info, 'PcoFileInfo', where);
  checkObject(info.formatVersion, 'PcoFormatVersion', where);
  for (const c of info.chunks) {
    checkObject(c, 'PcoChunkInfo', where);
    checkObject(c.mode, 'PcoMode', where);
    checkObject(c.delta, 'PcoDelta', where);
    for (const v of c.latentVars) {
      checkObject(v, 'PcoLatentVar', where);
      for (const b of v.bins) {
        checkObject(b, 'PcoBin', where);
        expect(typeof b.lower).toBe(v.latentBits === 64 ? 'bigint' : 'number');
      }
    }
    const wide = ['u64', 'i64', 'f64'].includes(c.dtype);
    if (c.mode.name === 'IntMult') expect(typeof c.mode.base).toBe(wide ? 'bigint' : 'number');
    if (c.mode.name === 'FloatMult') expect(typeof c.mode.base).toBe('number');
    if (c.delta.name === 'Conv1') expect(typeof c.delta.bias).toBe('bigint');
  }
}

beforeAll(() => init());

describe('pco.inspect', () => {
  test('every standalone corpus file: keys as declared, 64-bit integers as bigint', () => {
    problems.clear();
    let checked = 0;
    let wideLowers = 0;
    for (const c of pcoCases()) {
      if (c.format !== 'standalone') continue;
      const info = pco.inspect(readBytes(pcoDir, c.file));
      checkPco(info, c.name);
      for (const ch of info.chunks) for (const v of ch.latentVars) if (v.latentBits === 64) wideLowers += v.bins.length;
      checked++;
    }
    expect(checked).toBeGreaterThan(50);
    expect(wideLowers).toBeGreaterThan(0);
    expect([...problems]).toEqual([]);
  });

  test('wrapped chunk info uses the same shapes', () => {
    problems.clear();
    const layout = readJson(pcoDir, 'wrapped_i64_pages.wrapped.json');
    const reader = pco.wrapped.open(readBytes(pcoDir, layout.header));
    const { info } = reader.chunk(readBytes(pcoDir, layout.chunks[0].meta), 'i64');
    checkObject(info, 'PcoChunkInfo', 'wrapped');
    for (const v of info.latentVars) for (const b of v.bins) expect(typeof b.lower).toBe(v.latentBits === 64 ? 'bigint' : 'number');
    expect([...problems]).toEqual([]);
  });
});

test('alp.inspect: keys as declared for every corpus page', () => {
  problems.clear();
  const alpDir = path.join(corpusRoot, 'alp');
  for (const c of readJson(alpDir, 'manifest.json')) {
    const dtype = c.dtype === 'float32' ? 'f32' : 'f64';
    const info = alp.inspect(readBytes(alpDir, c.file), dtype);
    checkObject(info, 'AlpPageInfo', c.name);
    for (const v of info.vectors) {
      checkObject(v, 'error' in v ? 'AlpVectorError' : 'AlpVectorInfo', c.name);
      if (!('error' in v)) expect(typeof v.frameOfReference).toBe(dtype === 'f64' ? 'bigint' : 'number');
    }
  }
  expect([...problems]).toEqual([]);
});

test('Matrix.inspect(): keys as declared for every BPCells directory and HDF5 case', async () => {
  problems.clear();
  const dirSet = path.join(corpusRoot, 'bpcells');
  for (const c of readJson(dirSet, 'manifest.json')) {
    checkObject((await bpcells.open(path.join(dirSet, c.dir))).inspect(), 'BpcellsMatrixInfo', c.name);
  }
  const h5Set = path.join(corpusRoot, 'bpcells-hdf5');
  for (const c of readJson(h5Set, 'manifest.json').slice(0, 3)) {
    const name = c.name;
    const m = await bpcells.open(path.join(h5Set, c.dir, 'matrix.h5'), { group: c.group });
    const info = m.inspect();
    checkObject(info, 'BpcellsMatrixInfo', name);
    expect(typeof info.group).toBe('string');
    m.close();
  }
  expect([...problems]).toEqual([]);
});
