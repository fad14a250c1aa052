// numdecode parquet / numdecode inspect FILE.parquet, run as a user runs them.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { readNpy } from '../../../js/cli/npy.js';
import { corpusRoot, projectRoot } from '../helpers/corpus.js';

const run = promisify(execFile);
const cli = path.join(projectRoot, 'bin/numdecode.js');
const dir = path.join(corpusRoot, 'parquet-alp');

function expectedCsv(file) {
  return readFileSync(path.join(dir, file), 'utf8').trim().split('\n');
}

async function numdecode(args, encoding = 'utf8') {
  return run(process.execPath, [cli, ...args], { encoding, maxBuffer: 64 << 20 });
}

test('csv of a FLOAT file reads back to the same f32 values as the writer CSV', async () => {
  const { stdout } = await numdecode(['parquet', path.join(dir, 'alp_float_spotify1.parquet'), '--range', '100:2200']);
  const got = stdout.trim().split('\n');
  const want = expectedCsv('alp_float_spotify1_expect.csv');
  expect(got[0]).toBe(want[0]);
  expect(got).toHaveLength(2101);
  for (let i = 1; i < got.length; i++) {
    const g = got[i].split(',').map((x) => Math.fround(Number(x)));
    const w = want[100 + i].split(',').map((x) => Math.fround(Number(x)));
    expect(g).toEqual(w);
  }
});

test('bin writes the DOUBLE column bytes; json names the columns', async () => {
  const file = path.join(dir, 'alp_arade.parquet');
  const { stdout } = await numdecode(['parquet', file, '--columns', 'value4', '--to', 'bin'], 'buffer');
  const values = new Float64Array(new Uint8Array(stdout).slice().buffer);
  const want = expectedCsv('alp_arade_expect.csv').slice(1).map((l) => Number(l.split(',')[3]));
  expect(Array.from(values)).toEqual(want);
  const json = JSON.parse((await numdecode(['parquet', file, '--columns', 'value2,value1', '--range', '14998:', '--to', 'json'])).stdout);
  const rows = expectedCsv('alp_arade_expect.csv').slice(-2).map((l) => l.split(',').map(Number));
  expect(json).toEqual({ numRows: 2, columns: { value2: rows.map((r) => r[1]), value1: rows.map((r) => r[0]) } });
});

test('inspect FILE.parquet prints the pages; errors exit 1 or 2 with one line', async () => {
  const info = JSON.parse((await numdecode(['inspect', path.join(dir, 'alp_spotify1.parquet')])).stdout);
  expect(info.rowGroups[0].columns.map((c) => c.pages[0].encoding)).toEqual(new Array(9).fill('ALP'));
  const bad = await numdecode(['parquet', path.join(dir, 'manifest.json')]).catch((e) => e);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toMatch(/manifest\.json/);
  const usage = await numdecode(['parquet', path.join(dir, 'alp_arade.parquet'), '--format', 'xml']).catch((e) => e);
  expect(usage.code).toBe(2);
});

test('numdecode parquet URL reads one column over HTTP', async () => {
  const { startServer, serveRange } = await import('../helpers/io-test-server.js');
  const server = await startServer();
  try {
    const data = readFileSync(path.join(dir, 'alp_float_arade.parquet'));
    server.handler = (req, res) => serveRange(req, res, data);
    const { stdout } = await numdecode(['parquet', `${server.base}/alp_float_arade.parquet`, '--columns', 'value4', '--to', 'bin'], 'buffer');
    const values = new Float32Array(new Uint8Array(stdout).slice().buffer);
    const want = Float32Array.from(expectedCsv('alp_float_arade_expect.csv').slice(1), (l) => Number(l.split(',')[3]));
    expect(Buffer.from(values.buffer).equals(Buffer.from(want.buffer))).toBe(true);
    expect(server.state.log.filter((l) => l.method === 'GET').every((l) => l.range !== null)).toBe(true);
    // --timeout reaches every request (the sniff's too), for parquet and inspect: a server that answers only the first
    let asked = 0;
    server.handler = (req, res) => (asked++ === 0 ? serveRange(req, res, data) : undefined);
    for (const args of [['parquet', `${server.base}/alp_float_arade.parquet`, '--columns', 'value4'], ['inspect', `${server.base}/alp_float_arade.parquet`]]) {
      asked = 0;
      const failed = await numdecode([...args, '--timeout', '200']).catch((e) => e);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(/timed out after 200 ms/);
    }
  } finally {
    await server.close();
  }
});

test('--range: NumPy slices of rows (negative from the end, steps); --to npy: rows x columns, as numpy.load reads it', async () => {
  const file = path.join(dir, 'alp_arade.parquet');
  const rows = expectedCsv('alp_arade_expect.csv').slice(1).map((l) => l.split(',').map(Number));
  const json = async (...args) => JSON.parse((await numdecode(['parquet', file, '--columns', 'value1', '--to', 'json', ...args])).stdout);
  expect((await json('--range', '10:20:4')).columns.value1).toEqual([rows[10][0], rows[14][0], rows[18][0]]);
  expect((await json('--range=-3:')).columns.value1).toEqual(rows.slice(-3).map((r) => r[0]));
  expect((await json('--range=-6:-1:2')).columns.value1).toEqual([rows.at(-6)[0], rows.at(-4)[0], rows.at(-2)[0]]);
  expect((await json('--range', '5')).columns.value1).toEqual([rows[5][0]]);
  const bad = await numdecode(['parquet', file, '--range', '1:2,3']).catch((e) => e);
  expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/--range: slice "1:2,3" has 2 entries but the array has 1 dimensions/)]);

  const { stdout } = await numdecode(['parquet', file, '--columns', 'value2,value1', '--range', '3:7', '--to', 'npy'], 'buffer');
  const got = readNpy(new Uint8Array(stdout));
  expect([got.dtype, got.shape, got.fortranOrder]).toEqual(['f64', [4, 2], true]);
  // Fortran order: column after column
  expect(Array.from(got.values)).toEqual([...rows.slice(3, 7).map((r) => r[1]), ...rows.slice(3, 7).map((r) => r[0])]);
  const headerLength = stdout.readUInt16LE(8);
  expect(stdout.subarray(0, 8)).toEqual(Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]));
  expect(stdout.subarray(10, 10 + headerLength).toString('latin1')).toMatch(/^\{'descr': '<f8', 'fortran_order': True, 'shape': \(4, 2\), \} *\n$/);
});

test('the old names still work, warning once each: --rows, --format csv|json|bin', async () => {
  const file = path.join(dir, 'alp_arade.parquet');
  const old = await numdecode(['parquet', file, '--columns', 'value1', '--rows', '2:5', '--format', 'json']);
  const now = await numdecode(['parquet', file, '--columns', 'value1', '--range', '2:5', '--to', 'json']);
  expect(old.stdout).toBe(now.stdout);
  expect(JSON.parse(now.stdout).numRows).toBe(3);
  expect(now.stderr).toBe('');
  for (const [name, instead] of [['parquet --rows', '--range'], ['parquet --format json', '--to json']]) {
    expect(old.stderr.split(`numdecode: ${name} is deprecated; use ${instead}`).length - 1).toBe(1);
  }
});

test('require("numdecode/parquet") reads a file (CommonJS entry, through package.json exports)', async () => {
  const script = `
    const { read, inspect, readPages } = require('numdecode/parquet');
    (async () => {
      const r = await read(${JSON.stringify(path.join(dir, 'alp_arade.parquet'))}, { columns: ['value1'], rowEnd: 3 });
      const info = await inspect(${JSON.stringify(path.join(dir, 'alp_arade.parquet'))});
      console.log(JSON.stringify({ values: Array.from(r.columns.value1.values), type: r.columns.value1.type, pages: info.rowGroups[0].columns.length, readPages: typeof readPages }));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const { stdout } = await run(process.execPath, ['-e', script], { cwd: projectRoot, encoding: 'utf8' });
  const want = expectedCsv('alp_arade_expect.csv').slice(1, 4).map((l) => Number(l.split(',')[0]));
  expect(JSON.parse(stdout)).toEqual({ values: want, type: 'DOUBLE', pages: 4, readPages: 'function' });
});
