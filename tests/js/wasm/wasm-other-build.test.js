// The scalar build's bytes given where the SIMD build was asked for: the two builds import
// different functions (the SIMD build throws with wasm exception handling, the scalar one through
// JS), so the load fails inside the glue and init says which build it got.
import { expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildInfo, init } from '../../../js/index.js';
import { projectRoot } from '../helpers/corpus.js';

test('init({simd: true}) given the scalar build names it', async () => {
  const scalarBinary = readFileSync(path.join(projectRoot, 'dist/numdecode-alp-scalar.wasm'));
  await expect(init({ simd: true, formats: ['alp'], wasmBinary: scalarBinary })).rejects.toThrow(
    'asked for the SIMD build of alp but got the scalar one',
  );
  // Another format's module is still "not numdecode's alp module".
  const pcoBinary = readFileSync(path.join(projectRoot, 'dist/numdecode-pco-simd.wasm'));
  await expect(init({ simd: true, formats: ['alp'], wasmBinary: pcoBinary })).rejects.toThrow(
    "the wasm given for alp is not numdecode's alp module",
  );
  await init({ simd: true, formats: ['alp'], wasmBinary: readFileSync(path.join(projectRoot, 'dist/numdecode-alp-simd.wasm')) });
  expect(buildInfo().simd).toBe(true);
});
