// Type-checks tests/js/parquet-api-usage.ts and parquet-cjs-usage.cts against js/parquet.d.ts /
// .d.cts through the package entry "numdecode/parquet" (package.json "exports"), strict settings.
import { expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { projectRoot } from './corpus.js';

test('numdecode/parquet declarations type real usage (ESM and CommonJS)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'parquet-tsc-'));
  try {
    const config = {
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: [], lib: ['ES2022', 'DOM'] },
      files: [path.join(projectRoot, 'tests/js/parquet-api-usage.ts'), path.join(projectRoot, 'tests/js/parquet-cjs-usage.cts')],
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
