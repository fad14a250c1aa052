// The package as npm ships it: `npm pack`, installed offline into an empty folder, used from
// import and from require (numdecode and its pco, alp, bpcells, zarr and worker entries).
// Offline and without any npm cache: the runtime dependencies are packed from this project's
// node_modules (the versions package-lock.json pins) and installed beside the tarball, so npm
// finds every dependency satisfied and asks no registry. A warm cache must not be what makes
// this pass: the install runs with an empty cache and HOME of its own.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { corpusRoot, pcoDir, projectRoot } from '../helpers/corpus.js';

// One module per format, each in a SIMD and a scalar build.
const DIST_FILES = ['pco', 'alp', 'bpcells', 'pco-encode'].flatMap((m) => ['simd', 'scalar'].flatMap((b) => [`numdecode-${m}-${b}.mjs`, `numdecode-${m}-${b}.wasm`]));

let work;
let tarball;
let files;
let app;

function run(cmd, args, cwd, env = process.env) {
  return execFileSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 110000, stdio: ['ignore', 'pipe', 'pipe'] });
}

// The packages a user's install brings with numdecode: every non-dev package of the lock file.
function runtimeDependencies() {
  const lock = JSON.parse(readFileSync(path.join(projectRoot, 'package-lock.json'), 'utf8'));
  return Object.entries(lock.packages)
    .filter(([key, entry]) => key.startsWith('node_modules/') && !entry.dev && !entry.optional && !entry.peer)
    .map(([key]) => key.slice('node_modules/'.length));
}

beforeAll(() => {
  work = mkdtempSync(path.join(os.tmpdir(), 'numdecode-pack-'));
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], projectRoot));
  tarball = path.join(work, packed[0].filename);
  files = packed[0].files.map((f) => f.path);
  app = path.join(work, 'app');
  mkdirSync(app);
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
  const deps = path.join(work, 'deps');
  mkdirSync(deps);
  const depTarballs = runtimeDependencies().map((name) => {
    const [packed] = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', deps, path.join(projectRoot, 'node_modules', name)], work));
    return path.join(deps, packed.filename);
  });
  expect(depTarballs.length).toBeGreaterThan(0);
  const empty = { ...process.env, HOME: path.join(work, 'home'), npm_config_cache: path.join(work, 'npm-cache') };
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', ...depTarballs, tarball], app, empty);
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the tarball holds the library, every format\'s wasm builds and types, no CommonJS twins, and nothing else', () => {
  for (const f of [
    'package.json',
    'README.md',
    'bin/numdecode.js',
    'js/index.js',
    'js/index.d.ts',
    'js/pco.js',
    'js/wasm/load.js',
    'js/zarr.js',
    'js/zarr.d.ts',
    'js/worker/index.js',
    'js/worker/index.d.ts',
    'js/worker/worker.js',
    'js/pco-entry.js',
    'js/pco-entry.d.ts',
    ...['alp', 'bpcells'].flatMap((format) => ['js', 'd.ts'].map((ext) => `js/${format}-entry.${ext}`)),
    ...DIST_FILES.map((f) => `dist/${f}`),
  ]) {
    expect(files).toContain(f);
  }
  expect(files.filter((f) => /^(tests|src|node_modules|build|bench|scripts)\//.test(f))).toEqual([]);
  expect(files.filter((f) => /\.(cjs|d\.cts)$/.test(f))).toEqual([]);
  expect(readdirSync(path.join(app, 'node_modules', 'numdecode', 'dist')).sort()).toEqual([...DIST_FILES].sort());
});

const file = (name) => JSON.stringify(path.join(pcoDir, name));
const alpFile = (name) => JSON.stringify(path.join(corpusRoot, 'alp', name));
const bpcellsMatrix = JSON.stringify(path.join(corpusRoot, 'bpcells/packed_uint_col_names/matrix'));
const bpcellsVal = JSON.stringify(path.join(corpusRoot, 'bpcells/packed_uint_col_names/expected/val.u32'));

test('import: numdecode, numdecode/pco, numdecode/alp, numdecode/bpcells, numdecode/zarr, numdecode/worker', () => {
  const script = `
    import { readFileSync } from 'node:fs';
    import { init, pco, buildInfo } from 'numdecode';
    import * as light from 'numdecode/pco';
    import { registerPcodec, PcodecCodec } from 'numdecode/zarr';
    import { createWorkerPool } from 'numdecode/worker';
    const bytes = new Uint8Array(readFileSync(${file('classic_f64_n1000.pco')}));
    const want = new Uint8Array(readFileSync(${file('classic_f64_n1000.bin')}));
    const same = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).equals(want);
    const lightApi = await light.init();
    const out = { light: same(lightApi.pco.decode(bytes)) && lightApi === light };
    const alpOnly = await import('numdecode/alp');
    await alpOnly.init();
    const alpValues = alpOnly.alp.decode(readFileSync(${alpFile('f64_bw64_n2048.alp')}), 'f64');
    out.alp = Buffer.from(alpValues.buffer).equals(readFileSync(${alpFile('f64_bw64_n2048.bin')}));
    const { bpcells } = await import('numdecode/bpcells');
    const { val } = await (await bpcells.open(${bpcellsMatrix})).read();
    out.bpcells = Buffer.from(val.buffer).equals(readFileSync(${bpcellsVal}));
    await init();
    const view = pco.decodeView(bytes);
    Object.assign(out, { version: buildInfo().version, decode: same(pco.decode(bytes)), view: same(view.values) });
    view.release();
    const registry = registerPcodec(new Map());
    const entry = await registry.get('numcodecs.pcodec')();
    const chunk = await entry.fromConfig({ level: 8 }, { dataType: 'float64', shape: [1000], codecs: [] }).decode(bytes);
    out.zarr = same(chunk.data) && entry.fromConfig({}, { dataType: 'float64', shape: [1000] }) instanceof PcodecCodec;
    const pool = await createWorkerPool({ size: 2 });
    out.worker = (await pool.decodePcoMany([bytes, bytes])).every(same);
    await pool.terminate();
    console.log(JSON.stringify(out));
  `;
  const out = JSON.parse(run(process.execPath, ['--input-type=module', '-e', script], app));
  expect(out).toEqual({ light: true, alp: true, bpcells: true, version: expect.stringMatching(/^\d+\.\d+\.\d+/), decode: true, view: true, zarr: true, worker: true });
});

test('require: numdecode, numdecode/pco, numdecode/alp, numdecode/bpcells, numdecode/zarr, numdecode/worker', () => {
  const script = `
    const { readFileSync } = require('node:fs');
    const numdecode = require('numdecode');
    const { registerPcodec } = require('numdecode/zarr');
    const { createWorkerPool } = require('numdecode/worker');
    const bytes = new Uint8Array(readFileSync(${file('classic_i64_n1000.pco')}));
    const want = new Uint8Array(readFileSync(${file('classic_i64_n1000.bin')}));
    const same = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).equals(want);
    (async () => {
      const out = {};
      try { numdecode.pco.decode(bytes); } catch (err) { out.beforeInit = err.message; }
      await numdecode.init();
      try { numdecode.pco.decode(bytes.subarray(0, 20)); } catch (err) {
        out.errorFamily = err instanceof numdecode.PcoError && err instanceof numdecode.NumdecodeError &&
          !(err instanceof numdecode.AlpError) && err.code === numdecode.CODES.BAD_DATA;
      }
      out.decode = same(numdecode.pco.decode(bytes));
      const light = require('numdecode/pco');
      await light.init({ simd: 'auto' });
      out.light = same(light.pco.decode(bytes));
      const alpOnly = require('numdecode/alp');
      await alpOnly.init();
      const alpValues = alpOnly.alp.decode(readFileSync(${alpFile('f32_bw32_n2048.alp')}), 'f32');
      out.alp = Buffer.from(alpValues.buffer).equals(readFileSync(${alpFile('f32_bw32_n2048.bin')}));
      const bpcellsOnly = require('numdecode/bpcells');
      await bpcellsOnly.init();
      const { val } = await (await bpcellsOnly.bpcells.open(${bpcellsMatrix})).read();
      out.bpcells = Buffer.from(val.buffer).equals(readFileSync(${bpcellsVal}));
      out.inspect = numdecode.pco.inspect(bytes).chunks.length;
      out.dtypes = numdecode.DTYPES.length;
      // require(esm): require() and import() give the one module instance, not a second copy.
      out.sameModule = (await import('numdecode')) === numdecode;
      const registry = registerPcodec(new Map());
      const entry = await registry.get('pcodec')();
      out.zarr = same((await entry.fromConfig({}, { dataType: 'int64', shape: [1000], codecs: [] }).decode(bytes)).data);
      const pool = await createWorkerPool({ size: 1 });
      out.worker = same(await pool.decodePco(bytes));
      await pool.terminate();
      console.log(JSON.stringify(out));
    })().catch((err) => { console.error(err); process.exit(1); });
  `;
  const out = JSON.parse(run(process.execPath, ['-e', script], app));
  expect(out).toEqual({
    beforeInit: expect.stringMatching(/^numdecode: await init\(\) before decoding pco/),
    errorFamily: true,
    decode: true,
    light: true,
    alp: true,
    bpcells: true,
    inspect: 1,
    dtypes: 11,
    sameModule: true,
    zarr: true,
    worker: true,
  });
});

test('require() gives the DTYPES list of import', async () => {
  const { DTYPES } = await import('../../../js/index.js');
  const script = `console.log(JSON.stringify(require('numdecode').DTYPES))`;
  expect(JSON.parse(run(process.execPath, ['-e', script], app))).toEqual([...DTYPES]);
});

test('require() gives the CODES of import', async () => {
  const { CODES } = await import('../../../js/index.js');
  const script = `console.log(JSON.stringify(require('numdecode').CODES))`;
  expect(JSON.parse(run(process.execPath, ['-e', script], app))).toEqual({ ...CODES });
});
