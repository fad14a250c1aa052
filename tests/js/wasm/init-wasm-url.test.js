// init({ formats: ['pco'], wasmUrl }): one format's .wasm from a URL of the caller's choosing (a file: URL in Node).
import { expect, test } from '@jest/globals';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { init, pco } from '../../../js/index.js';
import { pcoDir, projectRoot, readBytes } from '../helpers/corpus.js';

test('init fetches the build from options.wasmUrl', async () => {
  await expect(init({ simd: false, formats: ['pco'], wasmUrl: pathToFileURL('/nonexistent/numdecode.wasm') })).rejects.toThrow(/ENOENT/);
  const url = pathToFileURL(path.join(projectRoot, 'dist/numdecode-pco-scalar.wasm'));
  await init({ simd: false, formats: ['pco'], wasmUrl: url.href });
  const got = pco.decode(readBytes(pcoDir, 'classic_f64_n1000.pco'));
  expect(Buffer.from(got.buffer).equals(Buffer.from(readBytes(pcoDir, 'classic_f64_n1000.bin')))).toBe(true);
});
