// init({ formats: ['pco'], module }): a precompiled WebAssembly.Module of one format (compiled once,
// e.g. shared with workers).
// Its own test file: one module registry, one load.
import { expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { NumdecodeError, init, pco } from '../../../js/index.js';
import { pcoDir, projectRoot, readBytes } from '../helpers/corpus.js';

test('init accepts a compiled WebAssembly.Module and decodes with it', async () => {
  const compiled = await WebAssembly.compile(readFileSync(path.join(projectRoot, 'dist/numdecode-pco-scalar.wasm')));
  await expect(init({ simd: false, formats: ['pco'], module: 'not a module' })).rejects.toThrow(/options.module must be a WebAssembly.Module/);
  // A module that is not numdecode's (no exports, no imports it expects): the load fails, not hangs.
  const empty = await WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
  await expect(init({ simd: false, formats: ['pco'], module: empty })).rejects.toThrow(NumdecodeError);
  const api = await init({ simd: false, formats: ['pco'], module: compiled });
  expect(api.buildInfo().simd).toBe(false);
  const got = pco.decode(readBytes(pcoDir, 'classic_u8_n1000.pco'));
  expect(Buffer.from(got).equals(Buffer.from(readBytes(pcoDir, 'classic_u8_n1000.bin')))).toBe(true);
});
