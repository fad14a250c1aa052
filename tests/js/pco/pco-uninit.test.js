// A fresh module registry (this test file's own) where init() was never called.
import { expect, test } from '@jest/globals';
import { CODES, NumdecodeError, buildInfo, pco } from '../../../js/index.js';

test('decoding before init() throws a clear Error', () => {
  const bytes = new Uint8Array([0x70, 0x63, 0x6f, 0x21]);
  expect(() => pco.decode(bytes)).toThrow('numdecode: await init() before decoding');
  expect(() => pco.decodeChunks(bytes)).toThrow('await init()');
  expect(() => pco.inspect(bytes)).toThrow('await init()');
  expect(() => pco.wrapped.open(bytes)).toThrow('await init()');
  expect(() => buildInfo()).toThrow('await init()');
  let err;
  try {
    pco.decode(bytes);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(NumdecodeError);
  expect(err.code).toBe(CODES.NOT_INITIALIZED);
});
