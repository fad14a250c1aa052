// The npm package as a consumer sees it: exports, bin, and what `npm pack` would ship.
import { expect, test } from '@jest/globals';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../helpers/corpus.js';

const pkg = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8'));

test('the "." export resolves to the ESM entry and its types', async () => {
  const entry = pkg.exports['.'];
  // One file for import and require() (require(esm)): no conditions but the types.
  expect(Object.keys(entry)).toEqual(['types', 'default']);
  expect(existsSync(path.join(projectRoot, entry.default))).toBe(true);
  expect(existsSync(path.join(projectRoot, entry.types))).toBe(true);
  const api = await import(path.join(projectRoot, entry.default));
  expect(typeof api.init).toBe('function');
  expect(typeof api.buildInfo).toBe('function');
  expect(typeof api.pco.decode).toBe('function');
  expect(typeof api.pco.wrapped.open).toBe('function');
});

test('the bin is an executable Node script', () => {
  const bin = path.join(projectRoot, pkg.bin.numdecode);
  expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  expect(statSync(bin).mode & 0o111).not.toBe(0);
});

test('the files list ships the JS, every format\'s wasm builds and the CLI', () => {
  expect(pkg.files).toEqual(expect.arrayContaining(['js', 'dist', 'bin', 'README.md']));
  for (const f of ['pco', 'alp', 'bpcells'].flatMap((m) => ['simd', 'scalar'].flatMap((b) => [`numdecode-${m}-${b}.mjs`, `numdecode-${m}-${b}.wasm`]))) {
    expect(existsSync(path.join(projectRoot, 'dist', f))).toBe(true);
  }
});
