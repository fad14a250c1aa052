// The light entries numdecode/alp and numdecode/bpcells, as a user imports them (package name, in
// a fresh Node process each, from import and from require): init() loads that format's
// WebAssembly module and no other (the .wasm files the process reads are recorded), the values are
// the corpus writers' bit for bit, errors come from the package's family, and the functions are
// the main entry's own. (Which JS files a page fetches through them: size-budget.test.js.)
import { expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { corpusRoot, projectRoot } from '../helpers/corpus.js';

const alpDir = path.join(corpusRoot, 'alp');
const bpcellsDir = path.join(corpusRoot, 'bpcells');
const q = (p) => JSON.stringify(p);

// Runs a script in a fresh Node process in the project folder (so that 'numdecode/...' resolves
// through package.json's exports) and returns the JSON it prints last.
function run(script, { esm }) {
  const args = esm ? ['--input-type=module', '-e', script] : ['-e', script];
  const out = execFileSync(process.execPath, args, { cwd: projectRoot, encoding: 'utf8', timeout: 60000, stdio: ['ignore', 'pipe', 'pipe'] });
  return JSON.parse(out.trim().split('\n').pop());
}

// Records the numdecode .wasm files the process reads: in Node js/wasm/load.js reads a module's bytes
// with fs/promises.readFile, which this wraps (syncBuiltinESMExports makes import() see the wrapper).
const RECORD_WASM_READS = `
  const wasmReads = [];
  const readFileOriginal = fsp.readFile;
  fsp.readFile = function readFile(file, ...rest) {
    const name = String(file instanceof URL ? file.pathname : file).split('/').pop();
    if (/^numdecode-.*\\.wasm$/.test(name)) wasmReads.push(name);
    return readFileOriginal.call(this, file, ...rest);
  };
  syncBuiltinESMExports();
  const sameBytes = (typed, file) => Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength).equals(readFileSync(file));
`;
const ESM_PRELUDE = `
  import fsp from 'node:fs/promises';
  import { readFileSync } from 'node:fs';
  import { syncBuiltinESMExports } from 'node:module';
  ${RECORD_WASM_READS}
`;
const CJS_PRELUDE = `
  const fsp = require('node:fs/promises');
  const { readFileSync } = require('node:fs');
  const { syncBuiltinESMExports } = require('node:module');
  ${RECORD_WASM_READS}
`;
// The loaded formats, as js/wasm/load.js (the same module instance the entries use) knows them.
const LOADED_FORMATS = `const loadedFormats = ['pco', 'alp', 'bpcells'].filter(wasm.formatLoaded);`;

test("import 'numdecode/alp': init() loads only the ALP module; decodes, errors and functions are the main entry's", () => {
  const out = run(
    `${ESM_PRELUDE}
    const light = await import('numdecode/alp');
    const wasm = await import(${q(path.join(projectRoot, 'js/wasm/load.js'))});
    const out = {};
    try { light.alp.decode(new Uint8Array(8), 'f64'); } catch (err) { out.beforeInit = [err instanceof light.NumdecodeError, err.code]; }
    const api = await light.init();
    out.initResolvesToEntry = api === light;
    ${LOADED_FORMATS}
    out.loaded = loadedFormats;
    out.wasmReads = [...wasmReads];
    out.simd = light.buildInfo().simd;
    const page = readFileSync(${q(path.join(alpDir, 'f64_bw64_n2048.alp'))});
    const values = light.alp.decode(page, 'f64');
    out.decoded = [values.length, sameBytes(values, ${q(path.join(alpDir, 'f64_bw64_n2048.bin'))})];
    const info = light.alp.inspect(page, 'f64');
    out.inspect = [info.numElements, info.valid];
    const vector = light.alp.decodeVector(page, 'f64', 1);
    out.vector1 = Buffer.from(vector.buffer).equals(Buffer.from(values.buffer, 8 * info.vectors[1].firstValue, vector.byteLength));
    try { light.alp.decode(page.subarray(0, 3), 'f64'); } catch (err) {
      out.badPage = [err instanceof light.AlpError, err instanceof light.NumdecodeError, err.code, err.message.startsWith('ALP')];
    }
    try { await light.init({ formats: ['pco'] }); } catch (err) { out.formatsOption = [err.constructor.name, err.message]; }
    const input = light.wasmInput('alp', page.length);
    input.bytes.set(page);
    out.fromWasmInput = sameBytes(light.alp.decode(input.bytes, 'f64'), ${q(path.join(alpDir, 'f64_bw64_n2048.bin'))});
    input.release();
    const main = await import('numdecode');
    out.sameFunctions = main.alp.decode === light.alp.decode && main.AlpError === light.AlpError;
    out.wasmReadsAtEnd = wasmReads;
    console.log(JSON.stringify(out));`,
    { esm: true },
  );
  const wasmFile = `numdecode-alp-${out.simd ? 'simd' : 'scalar'}.wasm`;
  expect(out).toEqual({
    beforeInit: [true, 'ERR_NOT_INITIALIZED'],
    initResolvesToEntry: true,
    loaded: ['alp'],
    wasmReads: [wasmFile],
    simd: out.simd,
    decoded: [2048, true],
    inspect: [2048, true],
    vector1: true,
    badPage: [true, true, 'ERR_BAD_DATA', true],
    formatsOption: ['TypeError', "numdecode/alp init: this entry loads ALP only; use init() from 'numdecode' to choose formats"],
    fromWasmInput: true,
    sameFunctions: true,
    wasmReadsAtEnd: [wasmFile], // importing the main entry loads no module
  });
});

test("require('numdecode/alp'): init() loads only the ALP module, then decodes and encodes like the ES entry", () => {
  const out = run(
    `${CJS_PRELUDE}
    const light = require('numdecode/alp');
    (async () => {
      const out = {};
      try { light.alp.decode(new Uint8Array(8), 'f32'); } catch (err) { out.beforeInit = err.message; }
      const api = await light.init({ simd: 'auto' });
      out.initResolvesToEsm = typeof api.alp.decode === 'function' && api.alp.decode === (await import('numdecode/alp')).alp.decode;
      const wasm = await import(${q(path.join(projectRoot, 'js/wasm/load.js'))});
      ${LOADED_FORMATS}
      out.loaded = loadedFormats;
      out.wasmReads = [...wasmReads];
      out.version = light.buildInfo().version;
      const page = readFileSync(${q(path.join(alpDir, 'f32_bw32_n2048.alp'))});
      const values = light.alp.decode(page, { dtype: 'f32' });
      out.decoded = [values.length, sameBytes(values, ${q(path.join(alpDir, 'f32_bw32_n2048.bin'))})];
      const again = light.alp.decode(light.alp.encode(values, { layout: 'merged' }), 'f32');
      out.roundTrip = Buffer.from(again.buffer).equals(Buffer.from(values.buffer));
      try { light.alp.decode(page.subarray(0, 3), 'f32'); } catch (err) {
        out.badPage = [err instanceof light.AlpError, err instanceof light.NumdecodeError, !(err instanceof light.PcoError), err.code === light.CODES.BAD_DATA];
      }
      console.log(JSON.stringify(out));
    })().catch((err) => { console.error(err); process.exit(1); });`,
    { esm: false },
  );
  expect(out).toEqual({
    beforeInit: expect.stringMatching(/^numdecode: await init\(\) before decoding alp/), // require(esm): the ES module's own message
    initResolvesToEsm: true,
    loaded: ['alp'],
    wasmReads: [expect.stringMatching(/^numdecode-alp-(simd|scalar)\.wasm$/)],
    version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    decoded: [2048, true],
    roundTrip: true,
    badPage: [true, true, true, true],
  });
});

test("import 'numdecode/bpcells': open() loads only the BPCells module; directories and HDF5 files read exactly", () => {
  const dir = path.join(bpcellsDir, 'packed_uint_col_names');
  const h5 = path.join(corpusRoot, 'bpcells-hdf5/chunk_boundary_cols');
  const out = run(
    `${ESM_PRELUDE}
    const light = await import('numdecode/bpcells');
    const wasm = await import(${q(path.join(projectRoot, 'js/wasm/load.js'))});
    const out = { wasmReadsOnImport: [...wasmReads] };
    const matrix = await light.bpcells.open(${q(path.join(dir, 'matrix'))});
    ${LOADED_FORMATS}
    out.loaded = loadedFormats;
    out.wasmReads = [...wasmReads];
    const { val, index } = await matrix.read();
    out.read = [val.length, sameBytes(val, ${q(path.join(dir, 'expected/val.u32'))}), sameBytes(index, ${q(path.join(dir, 'expected/index.u32'))})];
    matrix.close();
    out.initResolvesToEntry = (await light.init()) === light;
    const expected = JSON.parse(readFileSync(${q(path.join(h5, 'expected.json'))}, 'utf8'));
    const hdf5 = await light.bpcells.open(${q(path.join(h5, 'matrix.h5'))}, { group: 'mat' });
    const got = await hdf5.read();
    out.hdf5 = [got.val.length, got.val.every((v, i) => v === expected.stored.val[i]), got.index.every((v, i) => v === expected.stored.index[i])];
    hdf5.close();
    try {
      await (await light.bpcells.open(${q(path.join(bpcellsDir, 'corrupt/truncated_index_data'))})).read();
    } catch (err) {
      out.corrupt = [err instanceof light.BpcellsError, err instanceof light.NumdecodeError, err.code, /index_data/.test(err.message)];
    }
    const file = light.io.openFile(new Uint8Array([1, 2, 3, 4]));
    out.io = [...(await file.read(1, 3))];
    try { await light.init({ formats: ['alp'] }); } catch (err) { out.formatsOption = err.constructor.name; }
    const main = await import('numdecode');
    out.sameFunctions = main.bpcells.open === light.bpcells.open && main.io.openFile === light.io.openFile;
    out.wasmReadsAtEnd = wasmReads;
    console.log(JSON.stringify(out));`,
    { esm: true },
  );
  const wasmFile = expect.stringMatching(/^numdecode-bpcells-(simd|scalar)\.wasm$/);
  expect(out).toEqual({
    wasmReadsOnImport: [],
    loaded: ['bpcells'],
    wasmReads: [wasmFile],
    read: [213, true, true],
    initResolvesToEntry: true,
    hdf5: [900, true, true],
    corrupt: [true, true, 'ERR_BAD_DATA', true],
    io: [2, 3],
    formatsOption: 'TypeError',
    sameFunctions: true,
    wasmReadsAtEnd: [wasmFile], // HDF5 reading and the main entry's import load no other module
  });
});

test("require('numdecode/bpcells'): init() loads only the BPCells module, then reads like the ES entry", () => {
  const dir = path.join(bpcellsDir, 'packed_uint_col_names');
  const out = run(
    `${CJS_PRELUDE}
    const light = require('numdecode/bpcells');
    (async () => {
      const out = {};
      await light.init();
      const wasm = await import(${q(path.join(projectRoot, 'js/wasm/load.js'))});
      ${LOADED_FORMATS}
      out.loaded = loadedFormats;
      out.wasmReads = [...wasmReads];
      const matrix = await light.bpcells.open(${q(path.join(dir, 'matrix'))});
      const { val, index } = await matrix.read();
      out.read = [val.length, sameBytes(val, ${q(path.join(dir, 'expected/val.u32'))}), sameBytes(index, ${q(path.join(dir, 'expected/index.u32'))})];
      out.shape = matrix.shape;
      matrix.close();
      try {
        await (await light.bpcells.open(${q(path.join(bpcellsDir, 'corrupt/truncated_index_data'))})).read();
      } catch (err) {
        out.corrupt = [err instanceof light.BpcellsError, err instanceof light.NumdecodeError, err.code];
      }
      out.wasmReadsAtEnd = wasmReads;
      console.log(JSON.stringify(out));
    })().catch((err) => { console.error(err); process.exit(1); });`,
    { esm: false },
  );
  expect(out).toEqual({
    loaded: ['bpcells'],
    wasmReads: [expect.stringMatching(/^numdecode-bpcells-(simd|scalar)\.wasm$/)],
    read: [213, true, true],
    shape: [50, 20],
    corrupt: [true, true, 'ERR_BAD_DATA'],
    wasmReadsAtEnd: out.wasmReads,
  });
});
