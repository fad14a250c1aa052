// Type-checks the usage files of the entries' declarations (strict, NodeNext, through the package
// name: "numdecode", "numdecode/parquet" resolve via package.json "exports"), in one tsc run:
// js/bpcells/index.d.ts (bpcells-api-usage.ts), js/io/index.d.ts (io-api-usage.ts) and
// js/parquet.d.ts from import and from require() (parquet-api-usage.ts, parquet-cjs-usage.cts).
import { expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { projectRoot } from '../helpers/corpus.js';

const USAGE = ['bpcells-api-usage.ts', 'io-api-usage.ts', 'parquet-api-usage.ts', 'parquet-cjs-usage.cts', 'zarr-list-usage.ts'];

test('the BPCells, io and Parquet declarations type real usage (ESM and CommonJS)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'numdecode-tsc-'));
  try {
    const config = {
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: [], lib: ['ES2022', 'DOM'] },
      files: USAGE.map((f) => path.join(projectRoot, 'tests/types/declarations', f)),
    };
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(config));
    const tsc = path.join(projectRoot, 'node_modules/typescript/bin/tsc');
    const r = spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60000);
