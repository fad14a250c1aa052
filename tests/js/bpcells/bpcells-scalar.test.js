// The BPCells reader on the scalar WebAssembly build (engines without SIMD): every corpus
// directory must decode exactly as with the SIMD kernels, every corrupt one must be rejected.
import { beforeAll, expect, test } from '@jest/globals';
import path from 'node:path';
import * as bpcells from '../../../js/bpcells/index.js';
import { buildInfo, init } from '../../../js/index.js';
import { CATEGORY, cases, checkPieces, checkWhole, corruptCases, expected, setDir } from '../helpers/bpcells-corpus.js';

beforeAll(async () => {
  await init({ simd: false });
});

test('the scalar build is loaded', () => {
  expect(buildInfo().simd).toBe(false);
});

test.each(cases.map((c) => [c.name, c]))('%s reads exactly (scalar kernels)', async (_name, c) => {
  const exp = expected(c);
  for (const prefetchBytes of [undefined, 0]) {
    const m = await bpcells.open(path.join(setDir, c.dir), { prefetchBytes });
    await checkWhole(m, c, exp);
    await checkPieces(m, exp);
  }
});

test.each(corruptCases.map((c) => [c.name, c]))('corrupt %s is rejected (scalar kernels)', async (_name, c) => {
  const err = await (async () => {
    const m = await bpcells.open(path.join(setDir, c.dir));
    await m.read();
    await m.rowNames();
    await m.colNames();
  })().then(() => null, (e) => e);
  expect(err).toBeInstanceOf(bpcells.BpcellsError);
  expect(err.message).toMatch(CATEGORY[c.expected_error]);
});
