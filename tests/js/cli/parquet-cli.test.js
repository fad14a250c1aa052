// numdecode parquet / numdecode inspect FILE.parquet, run as a user runs them.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
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
  const { stdout } = await numdecode(['parquet', path.join(dir, 'alp_float_spotify1.parquet'), '--rows', '100:2200']);
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
  const { stdout } = await numdecode(['parquet', file, '--columns', 'value4', '--format', 'bin'], 'buffer');
  const values = new Float64Array(new Uint8Array(stdout).slice().buffer);
  const want = expectedCsv('alp_arade_expect.csv').slice(1).map((l) => Number(l.split(',')[3]));
  expect(Array.from(values)).toEqual(want);
  const json = JSON.parse((await numdecode(['parquet', file, '--columns', 'value2,value1', '--rows', '14998:', '--format', 'json'])).stdout);
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
    const { stdout } = await numdecode(['parquet', `${server.base}/alp_float_arade.parquet`, '--columns', 'value4', '--format', 'bin'], 'buffer');
    const values = new Float32Array(new Uint8Array(stdout).slice().buffer);
    const want = Float32Array.from(expectedCsv('alp_float_arade_expect.csv').slice(1), (l) => Number(l.split(',')[3]));
    expect(Buffer.from(values.buffer).equals(Buffer.from(want.buffer))).toBe(true);
    expect(server.state.log.filter((l) => l.method === 'GET').every((l) => l.range !== null)).toBe(true);
  } finally {
    await server.close();
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
