// The one error family: every decoder, the worker pool and the Zarr codec raise NumdecodeError
// subclasses with a stable `code` (never matched by message text), argument mistakes stay
// TypeError/RangeError, and the worker pool rebuilds the same class, code and fields.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import path from 'node:path';
import {
  AlpError,
  BpcellsError,
  CODES,
  IoError,
  NumdecodeError,
  PcoError,
  alp,
  bpcells,
  init,
  pco,
} from '../../../js/index.js';
import { createWorkerPool } from '../../../js/worker/index.js';
import { corpusRoot, pcoCorruptCases, pcoDir, readBytes, readJson } from '../helpers/corpus.js';
import { thrown } from '../helpers/rejection.js';

const alpDir = path.join(corpusRoot, 'alp');
const corrupt = pcoCorruptCases().filter((c) => c.expect === 'error');

beforeAll(() => init());

describe('Pco', () => {
  test('every damaged corpus file the reference rejects gives a PcoError with a data code', () => {
    expect(corrupt.length).toBeGreaterThan(100);
    const codes = new Set();
    for (const c of corrupt) {
      const err = thrown(() => pco.decode(readBytes(pcoDir, c.file)));
      expect(err).toBeInstanceOf(PcoError);
      expect(err).toBeInstanceOf(NumdecodeError);
      // A damaged version byte reads as a newer format: ERR_UNSUPPORTED is the honest answer there.
      expect([CODES.BAD_DATA, CODES.UNSUPPORTED]).toContain(err.code);
      if (err.code === CODES.UNSUPPORTED) expect(err.message).toMatch(/unsupported/);
      codes.add(err.code);
      expect(err.message.length).toBeGreaterThan(10);
    }
    expect(codes.has(CODES.BAD_DATA)).toBe(true);
  });

  test('a newer standalone version is ERR_UNSUPPORTED, not bad data', () => {
    const bytes = readBytes(pcoDir, 'classic_u8_n1000.pco').slice();
    expect(bytes[4]).toBe(3); // standalone version byte after "pco!"
    bytes[4] = 9;
    const err = thrown(() => pco.decode(bytes));
    expect(err).toBeInstanceOf(PcoError);
    expect(err.code).toBe(CODES.UNSUPPORTED);
    expect(err.message).toMatch(/standalone version 9/);
  });

  test('maxOutputBytes gives ERR_OUTPUT_LIMIT; a too-small decodeInto target is a RangeError', () => {
    const bytes = readBytes(pcoDir, 'classic_f64_n1000.pco');
    const err = thrown(() => pco.decode(bytes, { maxOutputBytes: 100 }));
    expect(err).toBeInstanceOf(PcoError);
    expect(err.code).toBe(CODES.OUTPUT_LIMIT);
    expect(() => pco.decodeInto(bytes, new Float64Array(10))).toThrow(RangeError);
  });

  test('decodeInto accepts a Node Buffer for a u8 file', () => {
    const bytes = readBytes(pcoDir, 'classic_u8_n1000.pco');
    const expected = pco.decode(bytes);
    const out = Buffer.alloc(1000);
    const got = pco.decodeInto(bytes, out);
    expect(got.length).toBe(1000);
    expect(Buffer.compare(out, Buffer.from(expected))).toBe(0);
  });

  test('f16 and u16 files both decode to a Uint16Array; dtypeOf and options.dtype tell them apart', () => {
    const f16 = readBytes(pcoDir, 'classic_f16_n1000.pco');
    const u16 = readBytes(pcoDir, 'classic_u16_n1000.pco');
    expect(pco.decode(f16)).toBeInstanceOf(Uint16Array);
    expect(pco.decode(u16)).toBeInstanceOf(Uint16Array);
    expect(pco.dtypeOf(f16)).toBe('f16');
    expect(pco.dtypeOf(u16)).toBe('u16');
    expect(() => pco.decode(u16, { dtype: 'f16' })).toThrow(/holds u16 values, but options.dtype is f16/);
    const view = pco.decodeView(f16, { dtype: 'f16' });
    expect(view.dtype).toBe('f16');
    view.release();
  });

  test('argument mistakes stay TypeError', () => {
    expect(() => pco.decode('not bytes')).toThrow(TypeError);
    expect(() => pco.decode(new Uint8Array(4), { maxOutputBytes: -1 })).toThrow(TypeError);
  });
});

describe('ALP', () => {
  const corruptAlp = readJson(alpDir, 'corrupt/manifest.json');
  const cases = corruptAlp.filter((c) => c.expect === 'error');

  test('damaged pages give AlpError with a data code', () => {
    expect(cases.length).toBeGreaterThan(3);
    const codes = new Set();
    for (const c of cases) {
      const dtype = c.dtype === 'float32' ? 'f32' : 'f64';
      const err = thrown(() => alp.decode(readBytes(alpDir, `corrupt/${c.file}`), dtype));
      expect(err).toBeInstanceOf(AlpError);
      // A damaged mode byte reads as an unknown mode: ERR_UNSUPPORTED, said as such.
      expect([CODES.BAD_DATA, CODES.UNSUPPORTED]).toContain(err.code);
      if (err.code === CODES.UNSUPPORTED) expect(err.message).toMatch(/unsupported/);
      codes.add(err.code);
    }
    expect(codes.has(CODES.BAD_DATA)).toBe(true);
  });

  test('an unknown compression mode is ERR_UNSUPPORTED; through alp.open too', () => {
    const page = alp.encode(Float64Array.from({ length: 50 }, (_, i) => i / 4), { layout: 'draft' });
    const bad = page.slice();
    bad[1] = 7; // draft layout: version byte, then compression mode
    const err = thrown(() => alp.decode(bad, 'f64'));
    expect(err).toBeInstanceOf(AlpError);
    expect(err.code).toBe(CODES.UNSUPPORTED);
    const reader = alp.open(bad, 'f64');
    try {
      const err2 = thrown(() => reader.decode());
      expect(err2).toBeInstanceOf(AlpError);
      expect(err2.code).toBe(CODES.UNSUPPORTED);
    } finally {
      reader.close();
    }
  });
});

test('a missing BPCells directory file is a BpcellsError', async () => {
  const err = await bpcells.open(path.join(corpusRoot, 'bpcells', 'no_such_matrix')).catch((e) => e);
  expect(err).toBeInstanceOf(BpcellsError);
  expect(err).toBeInstanceOf(NumdecodeError);
  expect(err.file).toBe('version');
});

describe('worker pool', () => {
  let pool;
  beforeAll(async () => {
    pool = await createWorkerPool({ size: 1 });
  });
  afterAll(() => pool?.terminate());

  test('rebuilds the class, code and fields of a worker error', async () => {
    const c = corrupt[0];
    const err = await pool.decodePco(readBytes(pcoDir, c.file)).catch((e) => e);
    expect(err).toBeInstanceOf(PcoError);
    expect(err.code).toBe(CODES.BAD_DATA);
    const direct = thrown(() => pco.decode(readBytes(pcoDir, c.file)));
    expect(err.message).toBe(direct.message);

    const bp = await pool
      .run({ format: 'bpcells', op: 'open', args: [path.join(corpusRoot, 'bpcells', 'no_such_matrix')] })
      .catch((e) => e);
    expect(bp).toBeInstanceOf(BpcellsError);
    expect(bp.file).toBe('version');
    expect(bp.message).toMatch(/^bpcells: /);
  });

  test('decodePco honours maxOutputBytes', async () => {
    const bytes = readBytes(pcoDir, 'classic_f64_n1000.pco');
    const err = await pool.decodePco(bytes, { maxOutputBytes: 100 }).catch((e) => e);
    expect(err).toBeInstanceOf(PcoError);
    expect(err.code).toBe(CODES.OUTPUT_LIMIT);
    const ok = await pool.decodePco(bytes, { maxOutputBytes: 8000 });
    expect(ok).toEqual(pco.decode(bytes));
  });

  test('argument errors keep their class through the pool', async () => {
    const err = await pool.run({ format: 'pco', op: 'decode', args: ['not bytes'] }).catch((e) => e);
    expect(err).toBeInstanceOf(TypeError);
  });
});

test('IoError is a NumdecodeError with ERR_NETWORK by default', () => {
  const err = new IoError('x', { file: 'http://127.0.0.1/a' });
  expect(err).toBeInstanceOf(NumdecodeError);
  expect(err.code).toBe(CODES.NETWORK);
  expect(err.file).toBe('http://127.0.0.1/a');
});
