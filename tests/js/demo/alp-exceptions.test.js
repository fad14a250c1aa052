// The demo's ALP view marks which values are exceptions (web/lib/alp-exceptions.js: the encoder's
// rule replayed, since the API gives only each vector's count). On every corpus page the values it
// marks in each vector are as many as the page declares: the rule is the reference encoder's
// (its magic-number rounding past 2^51 too, which made three f64 pages disagree).
import { beforeAll, expect, test } from '@jest/globals';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { alp, init } from '../../../js/index.js';
import { findExceptions } from '../../../web/lib/alp-exceptions.js';
import { corpusRoot, readBytes } from '../helpers/corpus.js';

const dir = path.join(corpusRoot, 'alp');
const pages = readdirSync(dir).filter((f) => f.endsWith('.alp'));

beforeAll(async () => {
  await init();
});

test.each(pages)('%s: every vector as many exceptions as it declares', (file) => {
  const dtype = file.startsWith('f32') ? 'f32' : 'f64';
  const bytes = readBytes(dir, file);
  const { vectors } = alp.inspect(bytes, dtype);
  const { positions, mismatchedVectors } = findExceptions(alp.decode(bytes, dtype), dtype, vectors);
  expect(mismatchedVectors).toEqual([]);
  expect(positions.length).toBe(vectors.reduce((n, v) => n + v.exceptions, 0));
});
