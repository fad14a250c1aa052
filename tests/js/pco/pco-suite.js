// The Pco corpus tests, defined once and run against each wasm build (pco-simd.test.js,
// pco-scalar.test.js). Each Jest test file has its own module registry, so each file loads its
// own module instance with the build it asks for.
import { describe, expect, test, beforeAll } from '@jest/globals';
import { buildInfo, init, pco } from '../../../js/index.js';
import { typedArrayFor } from '../../../js/dtypes.js';
import {
  bytesOf,
  concatBytes,
  expectSameBytes,
  pcoCases,
  pcoCorruptCases,
  pcoDir,
  readBytes,
  readJson,
  sha256,
} from '../helpers/corpus.js';

const cases = pcoCases();
const standalone = cases.filter((c) => c.format === 'standalone');
const wrappedCases = cases.filter((c) => c.format === 'wrapped');
const corrupt = pcoCorruptCases();
// The loader's error for a build without the Pco bindings: never an acceptable "decode error".
const MISSING_BINDING = /the loaded module has no pco/;

// "4.1" -> {major: 4, minor: 1}
function parseVersion(text) {
  const [major, minor] = text.split('.').map(Number);
  return { major, minor };
}

// Manifest mode ("Classic", "FloatQuant(13)", mode_detail "Dict(len=20)", "IntMult(U32(7))")
// -> the fields inspect() must report.
function expectedMode(detail) {
  const mode = { name: detail.mode.replace(/\(.*$/, '') };
  const quant = /^FloatQuant\((\d+)\)$/.exec(detail.mode);
  if (quant) mode.k = Number(quant[1]);
  const dict = /^Dict\(len=(\d+)\)$/.exec(detail.mode_detail);
  if (dict) mode.dictLength = Number(dict[1]);
  const intMult = /^IntMult\(U\d+\((\d+)\)\)$/.exec(detail.mode_detail);
  if (intMult) mode.base = intMult[1];
  return mode;
}

// Manifest delta ("None", "Consecutive(2)", "Lookback", "Conv1(6)" with delta_detail)
// -> the fields inspect() must report.
function expectedDelta(detail) {
  const delta = { name: detail.delta.replace(/\(.*$/, '') };
  const text = detail.delta_detail;
  const consecutive = /^Consecutive \{ order: (\d+), secondary_uses_delta: (\w+) \}$/.exec(text);
  if (consecutive) {
    delta.order = Number(consecutive[1]);
    delta.secondaryUsesDelta = consecutive[2] === 'true';
  }
  const lookback = /state_n_log: (\d+), window_n_log: (\d+) \}, secondary_uses_delta: (\w+)/.exec(text);
  if (lookback) {
    delta.stateNLog = Number(lookback[1]);
    delta.windowNLog = Number(lookback[2]);
    delta.secondaryUsesDelta = lookback[3] === 'true';
  }
  const conv = /quantization: (\d+), bias: (-?\d+), weights: \[([^\]]*)\]/.exec(text);
  if (conv) {
    delta.quantization = Number(conv[1]);
    delta.bias = conv[2];
    delta.weights = conv[3].split(',').map((w) => Number(w.trim()));
  }
  return delta;
}

// Compares one chunk's inspect() description with the manifest's chunk_details entry.
// Wrapped chunk metadata does not record n (the container knows each page's n), so the
// wrapped test checks the pages' total instead.
function expectChunkInfo(info, detail, { wrapped = false } = {}) {
  expect(info.dtype).toBe(detail.dtype);
  if (!wrapped) expect(info.n).toBe(detail.n);

  const mode = expectedMode(detail);
  expect(info.mode.name).toBe(mode.name);
  if ('k' in mode) expect(info.mode.k).toBe(mode.k);
  if ('dictLength' in mode) expect(info.mode.dictLength).toBe(mode.dictLength);
  if ('base' in mode) expect(String(info.mode.base)).toBe(mode.base);

  const delta = expectedDelta(detail);
  expect(info.delta.name).toBe(delta.name);
  if ('order' in delta) expect(info.delta.order).toBe(delta.order);
  if ('secondaryUsesDelta' in delta) expect(info.delta.secondaryUsesDelta).toBe(delta.secondaryUsesDelta);
  if ('windowNLog' in delta) expect(info.delta.windowNLog).toBe(delta.windowNLog);
  if ('stateNLog' in delta) expect(info.delta.stateNLog).toBe(delta.stateNLog);
  if ('quantization' in delta) {
    expect(info.delta.quantization).toBe(delta.quantization);
    // Biases can exceed 2^53: compare as decimal text.
    expect(String(info.delta.bias)).toBe(delta.bias);
    expect(info.delta.weights.map(Number)).toEqual(delta.weights);
  }

  expect(info.latentVars.map((v) => v.key)).toEqual(detail.latent_vars.map((v) => v.key));
  info.latentVars.forEach((v, i) => {
    expect(v.ansSizeLog).toBe(detail.latent_vars[i].ans_size_log);
    expect(v.bins.length).toBe(detail.latent_vars[i].n_bins);
  });
}

function expectValuesMatch(c, actualBytes) {
  if (c.expected === null) {
    expect(sha256(actualBytes)).toBe(c.sha256_of_expected);
  } else {
    expectSameBytes(actualBytes, readBytes(pcoDir, c.expected), c.name);
  }
}

export function definePcoSuite(simd) {
  describe(`pco (${simd ? 'SIMD' : 'scalar'} build)`, () => {
    beforeAll(async () => {
      await init({ simd });
      expect(buildInfo().simd).toBe(simd);
    });

    describe('standalone files decode bit-exactly', () => {
      test.each(standalone.map((c) => [c.name, c]))('%s', (_name, c) => {
        const bytes = readBytes(pcoDir, c.file);
        const values = pco.decode(bytes);
        expect(values.length).toBe(c.n);
        if (c.n > 0 || c.uniform_type) {
          expect(values).toBeInstanceOf(typedArrayFor(c.dtype));
        } else {
          // No chunks and no uniform dtype recorded: the documented empty Uint8Array.
          expect(values).toBeInstanceOf(Uint8Array);
        }
        expectValuesMatch(c, bytesOf(values));

        const chunks = pco.decodeChunks(bytes);
        expect(chunks.map((ch) => ch.dtype)).toEqual(c.chunk_details.map((d) => d.dtype));
        expect(chunks.map((ch) => ch.values.length)).toEqual(c.chunk_details.map((d) => d.n));
        expectValuesMatch(c, concatBytes(chunks.map((ch) => bytesOf(ch.values))));
      });
    });

    describe('inspect agrees with the reference', () => {
      test.each(standalone.map((c) => [c.name, c]))('%s', (_name, c) => {
        const info = pco.inspect(readBytes(pcoDir, c.file));
        if (c.format_version) expect(info.formatVersion).toEqual(parseVersion(c.format_version));
        if (c.standalone_version !== undefined) expect(info.standaloneVersion).toBe(c.standalone_version);
        if (c.uniform_type) expect(info.uniformDtype).toBe(c.dtype);
        expect(info.chunks.length).toBe(c.chunks);
        c.chunk_details.forEach((detail, i) => expectChunkInfo(info.chunks[i], detail));
      });
    });

    describe('wrapped format, page by page', () => {
      test.each(wrappedCases.map((c) => [c.name, c]))('%s', (_name, c) => {
        const layout = readJson(pcoDir, c.file);
        const reader = pco.wrapped.open(readBytes(pcoDir, layout.header));
        if (c.format_version) expect(reader.formatVersion).toEqual(parseVersion(c.format_version));
        expect(layout.chunks.length).toBe(c.chunks);
        const pages = [];
        layout.chunks.forEach((chunkLayout, i) => {
          const chunk = reader.chunk(readBytes(pcoDir, chunkLayout.meta), layout.dtype);
          expectChunkInfo(chunk.info, c.chunk_details[i], { wrapped: true });
          expect(chunkLayout.pages.reduce((sum, p) => sum + p.n, 0)).toBe(c.chunk_details[i].n);
          for (const page of chunkLayout.pages) {
            const values = chunk.decodePage(readBytes(pcoDir, page.file), page.n);
            expect(values).toBeInstanceOf(typedArrayFor(layout.dtype));
            expect(values.length).toBe(page.n);
            pages.push(bytesOf(values));
          }
        });
        expectValuesMatch(c, concatBytes(pages));
      });
    });

    describe('damaged files', () => {
      test.each(corrupt.map((c) => [c.name, c.expect, c]))('%s (%s)', (_name, _expect, c) => {
        const bytes = readBytes(pcoDir, c.file);
        let error = null;
        try {
          pco.decodeChunks(bytes);
        } catch (err) {
          error = err;
        }
        if (c.expect === 'error') expect(error).not.toBeNull();
        if (error !== null) {
          expect(error.message).not.toMatch(MISSING_BINDING);
          expect(error).toBeInstanceOf(Error);
          expect(typeof error.message).toBe('string');
          expect(error.message.length).toBeGreaterThan(0);
        }
      });

      test('the module stays usable after 1000 consecutive errors', () => {
        const failing = corrupt.filter((c) => c.expect === 'error').map((c) => readBytes(pcoDir, c.file));
        let errors = 0;
        for (let i = 0; i < 1000; i++) {
          try {
            pco.decode(failing[i % failing.length]);
          } catch (err) {
            if (err instanceof Error && !MISSING_BINDING.test(err.message)) errors++;
          }
        }
        expect(errors).toBe(1000);
        const good = cases.find((c) => c.name === 'classic_u32_n1000');
        expectSameBytes(bytesOf(pco.decode(readBytes(pcoDir, good.file))), readBytes(pcoDir, good.expected), good.name);
      });
    });

    describe('API behaviour', () => {
      test('chunks of different dtypes: decode refuses, decodeChunks gives each its dtype', () => {
        // Splice two standalone v3 files with identical headers (no uniform dtype): the i32
        // file's header and chunk, the f32 file's chunk, then the termination byte.
        const i32 = cases.find((c) => c.name === 'classic_i32_n1000');
        const f32 = cases.find((c) => c.name === 'classic_f32_n1000');
        const a = readBytes(pcoDir, i32.file);
        const b = readBytes(pcoDir, f32.file);
        const [aStart, aEnd] = pco.inspect(a).chunks[0].byteRange;
        const [bStart, bEnd] = pco.inspect(b).chunks[0].byteRange;
        expectSameBytes(a.subarray(0, aStart), b.subarray(0, bStart), 'file headers');
        const mixed = concatBytes([a.subarray(0, aEnd), b.subarray(bStart, bEnd), new Uint8Array([0])]);

        expect(() => pco.decode(mixed)).toThrow(/different dtypes.*decodeChunks/);
        const chunks = pco.decodeChunks(mixed);
        expect(chunks.map((ch) => ch.dtype)).toEqual(['i32', 'f32']);
        expect(chunks[0].values).toBeInstanceOf(Int32Array);
        expect(chunks[1].values).toBeInstanceOf(Float32Array);
        expectSameBytes(bytesOf(chunks[0].values), readBytes(pcoDir, i32.expected), 'i32 chunk');
        expectSameBytes(bytesOf(chunks[1].values), readBytes(pcoDir, f32.expected), 'f32 chunk');
      });

      test('arguments are checked before decoding', () => {
        const bytes = readBytes(pcoDir, 'classic_u32_n1000.pco');
        // Any BufferSource is bytes: the ArrayBuffer and a DataView over it decode the same.
        const whole = bytes.slice();
        expect(pco.decode(whole.buffer)).toEqual(pco.decode(whole));
        expect(pco.decode(new DataView(whole.buffer))).toEqual(pco.decode(whole));
        expect(() => pco.decode([1, 2, 3])).toThrow(/pco\.decode: bytes must be a Uint8Array, another ArrayBufferView or an ArrayBuffer, got Array/);
        expect(() => pco.decodeChunks(undefined)).toThrow(/or an ArrayBuffer, got undefined/);
        expect(() => pco.inspect('x')).toThrow(/or an ArrayBuffer, got string/);
        expect(() => pco.wrapped.open(null)).toThrow(/or an ArrayBuffer, got null/);
        expect(() => pco.decode(bytes, { maxOutputByte: 10 })).toThrow(/unknown option "maxOutputByte"/);
        expect(() => pco.decode(bytes, { dtype: 'f128' })).toThrow(TypeError);
        expect(pco.decode(bytes, { dtype: 'u32' })).toEqual(pco.decode(bytes));
        expect(() => pco.decode(bytes, { dtype: 'f64' })).toThrow(/holds u32 values, but options.dtype is f64/);
        expect(pco.dtypeOf(bytes)).toBe('u32');

        const layout = readJson(pcoDir, 'wrapped_i64_pages.wrapped.json');
        const reader = pco.wrapped.open(readBytes(pcoDir, layout.header));
        const meta = readBytes(pcoDir, layout.chunks[0].meta);
        expect(() => reader.chunk(meta, 'f128')).toThrow(/dtype must be one of u8, i8, .*f64, got "f128"/);
        expect(() => reader.chunk(42, 'i64')).toThrow(/metaBytes must be a Uint8Array/);
        const chunk = reader.chunk(meta, 'i64');
        const page = readBytes(pcoDir, layout.chunks[0].pages[0].file);
        for (const n of [-1, 1.5, NaN, 2 ** 53, '1000', 2 ** 32]) {
          expect(() => chunk.decodePage(page, n)).toThrow(/n must be an integer from 0 to 4294967295/);
        }
        // The reader kept its own copies: clobbering the caller's arrays changes nothing.
        meta.fill(0);
        expect(chunk.decodePage(page, 1000).length).toBe(1000);
      });

      test('a wrong page count is an Error, not a crash', () => {
        const layout = readJson(pcoDir, 'wrapped_i64_pages.wrapped.json');
        const reader = pco.wrapped.open(readBytes(pcoDir, layout.header));
        const chunk = reader.chunk(readBytes(pcoDir, layout.chunks[0].meta), 'i64');
        const page = readBytes(pcoDir, layout.chunks[0].pages[0].file);
        expect(() => chunk.decodePage(page.subarray(0, 10), 1000)).toThrow(Error);
        expect(() => chunk.decodePage(page, 2 ** 31)).toThrow(Error);
      });

      test('maxOutputBytes refuses a file that decodes to more, and allows one that fits', () => {
        const bytes = readBytes(pcoDir, 'const_i32_n10000.pco'); // 10000 i32 = 40000 bytes from a tiny file
        expect(() => pco.decode(bytes, { maxOutputBytes: 39999 })).toThrow(/output limit.*40000 bytes.*39999/);
        expect(() => pco.decodeChunks(bytes, { maxOutputBytes: 100 })).toThrow(/output limit/);
        const values = pco.decode(bytes, { maxOutputBytes: 40000 });
        expect(Buffer.from(values.buffer, values.byteOffset, values.byteLength)).toEqual(
          Buffer.from(readBytes(pcoDir, 'const_i32_n10000.bin')),
        );
        expect(() => pco.decode(bytes, { maxOutputBytes: -1 })).toThrow(/maxOutputBytes must be a non-negative number/);
      });
    });
  });
}
