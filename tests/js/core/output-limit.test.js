// options.maxOutputBytes has one meaning and one check in every reader (js/bytes.js,
// docs/vocabulary.md): absent or null, no limit; a non-negative number, the limit; anything else a
// TypeError saying so, before anything is decoded.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import * as zarr from 'zarrita';
import { init, pco, alp, bpcells } from '../../../js/index.js';
import { LocalStore, read as zarrRead, registerPcodec } from '../../../js/zarr.js';
import { read as parquetRead } from '../../../js/parquet.js';
import { outputBytesLimit } from '../../../js/bytes.js';
import { corpusRoot } from '../helpers/corpus.js';

const file = (rel) => new Uint8Array(readFileSync(path.join(corpusRoot, rel)));
const bitsOf = (values) => Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('hex');
const BAD = [-1, Number.NaN, '1000', {}];
const SAYS = /options\.maxOutputBytes must be a non-negative number/;

beforeAll(async () => {
  await init();
  registerPcodec(zarr.registry);
});

test('the one check: absent or null is no limit (unless the reader has a default), a non-negative number the limit, the rest a TypeError naming the call', () => {
  expect(outputBytesLimit('x', undefined)).toBe(Infinity);
  expect(outputBytesLimit('x', null)).toBe(Infinity);
  expect(outputBytesLimit('x', 0)).toBe(0);
  expect(outputBytesLimit('x', 4096)).toBe(4096);
  for (const bad of BAD) expect(() => outputBytesLimit('some call', bad)).toThrow(new TypeError(`some call: options.maxOutputBytes must be a non-negative number, got ${String(bad)}`));
});

// Each reader: what it reads with no option, with null (the same), and its refusal of bad values.
const readers = {
  'pco.decode': async (opts) => pco.decode(file('pco/classic_f64_n1000.pco'), opts),
  'alp.decode': async (opts) => alp.decode(file('alp/f64_bw64_n2048.alp'), { dtype: 'f64', ...opts }),
  'bpcells toDense': async (opts) => (await (await bpcells.open(path.join(corpusRoot, 'bpcells/packed_uint_col_names/matrix'))).toDense(0, 3, opts)).data,
  'zarr read': async (opts) => {
    const store = new LocalStore(path.join(corpusRoot, 'zarr-pcodec/stores/era5_like_v3.zarr'));
    return (await zarrRead(await zarr.open(zarr.root(store).resolve('t2m'), { kind: 'array' }), { selection: [0, null, null], ...opts })).data;
  },
  'parquet read': async (opts) => (await parquetRead(path.join(corpusRoot, 'parquet-alp/alp_arade.parquet'), { columns: ['value1'], rowEnd: 500, ...opts })).columns.value1.values,
};

test.each(Object.keys(readers))('%s: null reads as an absent limit; a negative, NaN or non-number limit is a TypeError', async (name) => {
  const reader = readers[name];
  const free = await reader({});
  expect(free.length).toBeGreaterThan(0);
  expect(bitsOf(await reader({ maxOutputBytes: null }))).toBe(bitsOf(free));
  expect(bitsOf(await reader({ maxOutputBytes: free.byteLength }))).toBe(bitsOf(free));
  for (const bad of BAD) {
    const err = await reader({ maxOutputBytes: bad }).catch((e) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toMatch(SAYS);
  }
});
