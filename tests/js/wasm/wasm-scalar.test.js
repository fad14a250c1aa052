// The scalar build, chosen explicitly and also loaded from caller-supplied bytes.
import { expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildInfo, init } from '../../../js/index.js';
import { projectRoot } from '../helpers/corpus.js';

test('init({simd: false}) loads the scalar build from wasmBinary', async () => {
  await expect(init({ simd: 'yes' })).rejects.toThrow("options.simd must be true, false or 'auto'");
  await expect(init({ simd: false, formats: ['pco'], wasmBinary: 'not bytes' })).rejects.toThrow('wasmBinary must be an ArrayBuffer');
  const simdBinary = readFileSync(path.join(projectRoot, 'dist/numdecode-pco-simd.wasm'));
  await expect(init({ simd: false, formats: ['pco'], wasmBinary: simdBinary })).rejects.toThrow(
    'asked for the scalar build of pco but got the SIMD one',
  );
  // A failed load can be retried with good options; any ArrayBufferView of the bytes will do.
  const bytes = readFileSync(path.join(projectRoot, 'dist/numdecode-pco-scalar.wasm'));
  await init({ simd: false, formats: ['pco'], wasmBinary: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
  expect(buildInfo().simd).toBe(false);
  await expect(init({ simd: true })).rejects.toThrow(/scalar build is already loaded/);
});
