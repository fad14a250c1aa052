// The package's TypeScript types as a user's project sees them: tsc type-checks
// tests/types/resolution/usage.ts (ESM) and usage.cts (CommonJS) in a temp project whose
// node_modules/numdecode links to this package, under module node16, node20, nodenext and
// bundler, strict, lib checks on. Each run must print nothing: a wrong "exports" types path, a
// .d.ts import without its extension, or an entry that resolves to `any` fails it.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { projectRoot } from '../helpers/corpus.js';

const usageDir = path.join(projectRoot, 'tests/types/resolution');
const tsc = path.join(projectRoot, 'node_modules/typescript/bin/tsc');
let dir;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'numdecode-tsc-'));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'user-app', private: true, type: 'module' }));
  for (const f of ['usage.ts', 'usage.cts']) copyFileSync(path.join(usageDir, f), path.join(dir, f));
  mkdirSync(path.join(dir, 'node_modules'));
  symlinkSync(projectRoot, path.join(dir, 'node_modules/numdecode'), 'dir');
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// The package is ES modules only; a require() of it (usage.cts) is Node's require(esm), which
// TypeScript allows under node20 and nodenext. node16 keeps Node 16's rules (no require of ESM),
// so there only the ESM usage is checked.
const SETTINGS = [
  ['node16', { module: 'Node16', moduleResolution: 'Node16' }, ['usage.ts']],
  ['node20', { module: 'Node20', moduleResolution: 'Node16' }, ['usage.ts', 'usage.cts']],
  ['nodenext', { module: 'NodeNext', moduleResolution: 'NodeNext' }, ['usage.ts', 'usage.cts']],
  // Bundler resolution goes with ES module syntax only (import = require needs a CommonJS module setting).
  ['bundler', { module: 'ESNext', moduleResolution: 'Bundler' }, ['usage.ts']],
];

test.each(SETTINGS)('types resolve and check under moduleResolution %s', (name, settings, files) => {
  const config = {
    compilerOptions: { target: 'ES2022', strict: true, noEmit: true, skipLibCheck: false, types: [], lib: ['ES2022', 'DOM'], ...settings },
    files,
  };
  const configPath = path.join(dir, `tsconfig.${name}.json`);
  writeFileSync(configPath, JSON.stringify(config));
  const r = spawnSync(process.execPath, [tsc, '-p', configPath], { encoding: 'utf8', timeout: 90000 });
  expect(r.stdout + r.stderr).toBe('');
  expect(r.status).toBe(0);
}, 100000);
