// init({ module }): a precompiled WebAssembly.Module (compiled once, e.g. shared with workers).
// Its own test file: one module registry, one load.
import { expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { init, pco } from '../../js/index.js';
import { pcoDir, projectRoot, readBytes } from './corpus.js';

test('init accepts a compiled WebAssembly.Module and decodes with it', async () => {
  const compiled = await WebAssembly.compile(readFileSync(path.join(projectRoot, 'dist/numdecode-scalar.wasm')));
  await expect(init({ simd: false, module: 'not a module' })).rejects.toThrow(/options.module must be a WebAssembly.Module/);
  const api = await init({ simd: false, module: compiled });
  expect(api.buildInfo().simd).toBe(false);
  const got = pco.decode(readBytes(pcoDir, 'classic_u8_n1000.pco'));
  expect(Buffer.from(got).equals(Buffer.from(readBytes(pcoDir, 'classic_u8_n1000.bin')))).toBe(true);
});
