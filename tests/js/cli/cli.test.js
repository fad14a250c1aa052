// bin/numdecode.js run as a user would: a child process, real files, exit codes.
import { expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readNpy } from '../../../js/cli/npy.js';
import { FORMAT_NAMES } from '../../../js/sniff.js';
import { runCli } from '../helpers/cli-process.js';
import { corpusRoot, expectSameBytes, pcoDir, projectRoot, readBytes } from '../helpers/corpus.js';

const cli = path.join(projectRoot, 'bin/numdecode.js');

function run(...args) {
  return runWithInput(undefined, ...args);
}

function runWithInput(input, ...args) {
  const result = spawnSync(process.execPath, [cli, ...args], { maxBuffer: 64 << 20, input, timeout: 60000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr.toString() };
}

test('decode writes the raw values to a file and to stdout', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'numdecode-cli-'));
  try {
    const out = path.join(dir, 'values.bin');
    const file = path.join(pcoDir, 'multichunk_i32_4chunks.pco');
    const toFile = run('decode', file, '-o', out);
    expect(toFile.stderr).toBe(`numdecode: ${readBytes(pcoDir, 'multichunk_i32_4chunks.bin').length / 4} i32 values in 4 chunk(s)\n`);
    expect(toFile.code).toBe(0);
    const expected = readBytes(pcoDir, 'multichunk_i32_4chunks.bin');
    expectSameBytes(new Uint8Array(readFileSync(out)), expected, 'decode -o');

    const toStdout = run('decode', '--format', 'pco', '--to', 'bin', path.join(pcoDir, 'classic_f16_n1000.pco'));
    expect(toStdout.code).toBe(0);
    expectSameBytes(new Uint8Array(toStdout.stdout), readBytes(pcoDir, 'classic_f16_n1000.bin'), 'decode to stdout');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('inspect prints the file description as JSON', () => {
  const result = run('inspect', path.join(pcoDir, 'multichunk_i32_4chunks.pco'));
  expect(result.code).toBe(0);
  const info = JSON.parse(result.stdout.toString());
  expect(info.chunks.length).toBe(4);
  expect(info.chunks.every((c) => c.dtype === 'i32')).toBe(true);
});

test('a damaged file exits 1 with one line naming the problem', () => {
  const result = run('decode', path.join(pcoDir, 'corrupt/classic_u32_n1000__bad_magic.pco'));
  expect(result.code).toBe(1);
  expect(result.stdout.length).toBe(0);
  expect(result.stderr).toMatch(/^numdecode: \S.*\n$/);
  expect(result.stderr).not.toMatch(/the loaded module has no/);
  expect(result.stderr.split('\n').length).toBe(2);
});

test('a missing file exits 1 with one line: not found, naming it, in every command', () => {
  const missing = path.join(pcoDir, 'no-such-file.pco');
  for (const command of ['decode', 'inspect', 'parquet', 'zarr', 'bpcells']) {
    const result = run(command, missing);
    expect([command, result.code, result.stderr]).toEqual([command, 1, `numdecode: not found: ${missing}\n`]);
  }
});

test('bytes of no known format: the formats checked, from js/sniff.js', () => {
  const file = path.join(projectRoot, 'package.json');
  const checked = `(checked: ${Object.values(FORMAT_NAMES).join(', ')})`;
  expect(checked).toBe('(checked: Pco, Parquet, HDF5, Zarr, BPCells directory)');
  for (const command of ['decode', 'inspect', 'parquet', 'bpcells']) {
    const result = run(command, file);
    expect([command, result.code]).toEqual([command, 1]);
    expect(result.stderr).toContain(`numdecode: ${file}: not a format numdecode reads ${checked}`);
    expect(result.stderr.split('\n').length).toBe(2);
  }
});

test('bad usage prints the usage and exits 2', () => {
  for (const args of [[], ['frobnicate'], ['decode', '--bogus', 'x'], ['decode'], ['inspect', '--format', 'zip', 'x']]) {
    const result = run(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^numdecode: .*\nUsage: numdecode <command> INPUT .*\n\(numdecode --help: /);
  }
});

test('--help and --version', () => {
  const help = run('--help');
  expect(help.code).toBe(0);
  const text = help.stdout.toString();
  expect(text).toMatch(/^Usage: numdecode <command> INPUT \[--format F\] \[--to csv\|json\|npy\|bin\] \[-o OUT\] \[--range R\]/);
  // The shared options once each, then each command on its own line.
  for (const option of ['--format F', '--to csv|json|npy|bin', '-o, --output OUT', '--range R', '--max-output-bytes N', '--max-read-bytes N', '--timeout MS', '--concurrency N', '--workers N']) {
    const lines = text.split('\n').filter((line) => line.startsWith(`  ${option} `));
    expect([option, lines.length]).toEqual([option, 1]);
  }
  for (const command of ['decode', 'inspect', 'parquet', 'zarr', 'bpcells', 'encode', 'encode-alp']) expect(text).toMatch(new RegExp(`^  ${command} INPUT`, 'm'));
  // A command's own help: its options, with the shared ones it takes.
  for (const command of ['decode', 'inspect', 'parquet', 'zarr', 'bpcells']) {
    const own = run(command, '--help');
    expect([command, own.code]).toEqual([command, 0]);
    expect(own.stdout.toString()).toMatch(/--format F/);
    expect(own.stdout.toString()).toMatch(/-h, --help/);
  }
  expect(run('parquet', '--help').stdout.toString()).toMatch(/--columns a,b.*\n(.*\n)*.*--range R/);
  expect(run('zarr', '--help').stdout.toString()).toMatch(/--array PATH/);
  const version = run('--version');
  const pkg = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8'));
  expect(version.stdout.toString()).toBe(`numdecode ${pkg.version}\n`);
});

test('decode - reads standard input; the format is told by the magic', () => {
  const bytes = readBytes(pcoDir, 'classic_f64_n1000.pco');
  const r = runWithInput(bytes, 'decode', '-', '--to', 'bin');
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('numdecode: 1000 f64 values in 1 chunk(s)\n');
  expectSameBytes(new Uint8Array(r.stdout), readBytes(pcoDir, 'classic_f64_n1000.bin'), 'decode -');
});

test('--to csv and --to json write the values as text; 64-bit integers exactly, f16 as numbers', () => {
  const csv = run('decode', '--to', 'csv', path.join(pcoDir, 'classic_i64_n1000.pco'));
  expect(csv.code).toBe(0);
  const lines = csv.stdout.toString().trimEnd().split('\n');
  const expected = new BigInt64Array(readBytes(pcoDir, 'classic_i64_n1000.bin').buffer);
  expect(lines.length).toBe(expected.length);
  expect(lines.map(BigInt)).toEqual(Array.from(expected));

  const json = run('decode', '--to', 'json', path.join(pcoDir, 'classic_f16_n1000.pco'));
  expect(json.code).toBe(0);
  const parsed = JSON.parse(json.stdout.toString());
  expect(parsed.dtype).toBe('f16');
  expect(parsed.count).toBe(1000);
  const bits = new Uint16Array(readBytes(pcoDir, 'classic_f16_n1000.bin').buffer);
  // Every f16 is exact in a double: compare through Float32 rounding of the bit pattern.
  const f16 = (b) => {
    const e = (b >> 10) & 31, f = b & 1023, sgn = b & 0x8000 ? -1 : 1;
    return e === 0 ? sgn * f * 2 ** -24 : e === 31 ? (f ? NaN : sgn * Infinity) : sgn * (1 + f / 1024) * 2 ** (e - 15);
  };
  const want = Array.from(bits, (b) => { const v = f16(b); return Number.isFinite(v) ? v : String(v); });
  expect(parsed.values).toEqual(want);
});

test('mixed-dtype files: binary output needs --chunk N; --to json keeps the chunks apart', () => {
  // Spliced like the API test does: the i32 file's header and chunk, the f32 file's chunk, the end byte.
  const a = readBytes(pcoDir, 'classic_i32_n1000.pco');
  const b = readBytes(pcoDir, 'classic_f32_n1000.pco');
  const [, aEnd] = pcoChunkRange(a);
  const [bStart, bEnd] = pcoChunkRange(b);
  const dir = mkdtempSync(path.join(tmpdir(), 'numdecode-cli-'));
  const file = path.join(dir, 'mixed.pco');
  writeFileSync(file, Buffer.concat([a.subarray(0, aEnd), b.subarray(bStart, bEnd), Buffer.from([0])]));
  const raw = run('decode', '--to', 'bin', file);
  expect(raw.code).toBe(2);
  expect(raw.stderr).toMatch(/different dtypes \(i32, f32\): pick one with --chunk N/);
  const second = run('decode', '--chunk', '1', file);
  expect(second.code).toBe(0);
  expect(second.stderr).toMatch(/ f32 values in 1 chunk/);
  const json = JSON.parse(run('decode', '--to', 'json', file).stdout.toString());
  expect(json.chunks.map((c) => c.dtype)).toEqual(['i32', 'f32']);
  expect(run('decode', '--chunk', '9', file).code).toBe(2);
  rmSync(dir, { recursive: true, force: true });
});

function pcoChunkRange(bytes) {
  const info = JSON.parse(spawnSync(process.execPath, [cli, 'inspect', '-'], { input: bytes }).stdout.toString());
  return info.chunks[0].byteRange;
}

test('containers go to their commands; a missing ALP dtype is a usage error', () => {
  // decode of a Parquet file is numdecode parquet with the same options.
  const parquetFile = path.join(corpusRoot, 'parquet-alp/alp_arade.parquet');
  const parquet = run('decode', parquetFile, '--range', '0:3', '--to', 'json');
  expect(parquet.code).toBe(0);
  expect(parquet.stdout.toString()).toBe(run('parquet', parquetFile, '--range', '0:3', '--to', 'json').stdout.toString());
  expect(JSON.parse(parquet.stdout.toString()).numRows).toBe(3);
  const noDtype = run('decode', '--format', 'alp', path.join(projectRoot, '../shared/corpus/alp/f32_n1.alp'));
  expect(noDtype.code).toBe(2);
  expect(noDtype.stderr).toMatch(/--dtype f32 or --dtype f64/);
  expect(run('decode', '--to', 'xml', path.join(pcoDir, 'classic_f64_n1000.pco')).code).toBe(2);
  // HDF5 told by its signature, also after a 512-byte user block (js/sniff.js, as the library reads it).
  const dir = mkdtempSync(path.join(tmpdir(), 'numdecode-cli-'));
  try {
    const h5 = readFileSync(path.join(corpusRoot, 'bpcells-hdf5/chunk_boundary_cols/matrix.h5'));
    const userBlock = path.join(dir, 'user-block.h5');
    writeFileSync(userBlock, Buffer.concat([Buffer.alloc(512), h5]));
    const hdf5 = run('decode', userBlock);
    expect([hdf5.code, hdf5.stderr]).toEqual([2, expect.stringMatching(/is a BPCells matrix \(HDF5\): write its arrays with numdecode bpcells .* --export DIR/)]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // inspect of a Zarr store is its listing, as numdecode zarr STORE prints it.
  const store = path.join(corpusRoot, 'zarr-pcodec/stores/era5_like_v2.zarr');
  const zarr = run('inspect', store);
  expect(zarr.code).toBe(0);
  expect(zarr.stdout.toString()).toBe(run('zarr', store).stdout.toString());
  expect(zarr.stdout.toString()).toMatch(/^\/t2m  float32 /m);
  // decode of a store is numdecode zarr with the same options
  const slice = run('decode', store, '--array', 'latitude', '--range', '0:3', '--to', 'json');
  expect(slice.code).toBe(0);
  expect(JSON.parse(slice.stdout.toString())).toMatchObject({ array: '/latitude', shape: [3], values: [90, 89, 88] });
  const misplaced = run('decode', path.join(pcoDir, 'classic_i32_n1000.pco'), '--array', 'x');
  expect([misplaced.code, misplaced.stderr]).toEqual([2, expect.stringMatching(/^numdecode: --array is an option of numdecode parquet or zarr, and .* is pco\n/)]);
});

test('decode and inspect of a URL heed --timeout when reading the file, not only when sniffing it', async () => {
  const { startServer, serveRange } = await import('../helpers/io-test-server.js');
  const server = await startServer();
  const pco = readBytes(pcoDir, 'classic_i32_n1000.pco');
  try {
    for (const command of ['decode', 'inspect']) {
      let answered = 0;
      // The sniff's two requests are answered; the read of the whole file never is.
      server.handler = (req, res) => (++answered <= 2 ? serveRange(req, res, pco) : undefined);
      const r = await runCli(command, `${server.base}/x.pco`, '--timeout', '300');
      expect([command, r.status]).toEqual([command, 1]);
      expect(r.stderr).toMatch(/^numdecode: HTTP request timed out after 300 ms \(http:\/\/127\.0\.0\.1:\d+\/x\.pco\) \[gave up after \d+ attempts\]\n$/);
    }
  } finally {
    server.close();
  }
}, 60000);

test('decode and inspect take an http(s) URL; a 404 is "not found", a file URL is never taken for a directory', async () => {
  const { startServer, serveRange } = await import('../helpers/io-test-server.js');
  const server = await startServer();
  try {
    const pco = readBytes(pcoDir, 'classic_f64_n1000.pco');
    const parquet = readFileSync(path.join(corpusRoot, 'parquet-alp/alp_arade.parquet'));
    server.handler = (req, res) => {
      if (req.url === '/x.pco') return serveRange(req, res, pco);
      if (req.url === '/t.parquet') return serveRange(req, res, parquet);
      res.writeHead(404).end();
    };
    const decoded = await runCli('decode', `${server.base}/x.pco`, '--to', 'bin');
    expect([decoded.status, decoded.stderr]).toEqual([0, 'numdecode: 1000 f64 values in 1 chunk(s)\n']);
    expectSameBytes(new Uint8Array(decoded.bytes), readBytes(pcoDir, 'classic_f64_n1000.bin'), 'decode URL');

    const inspected = await runCli('inspect', `${server.base}/x.pco`);
    expect(inspected.status).toBe(0);
    expect(JSON.parse(inspected.stdout.toString())).toEqual(JSON.parse(run('inspect', path.join(pcoDir, 'classic_f64_n1000.pco')).stdout.toString()));

    const table = await runCli('inspect', `${server.base}/t.parquet`);
    expect(table.status).toBe(0);
    expect(JSON.parse(table.stdout.toString()).numRows).toBe(15000);

    for (const command of ['decode', 'inspect']) {
      server.handler = (req, res) => (req.url === '/x.pco' ? serveRange(req, res, pco) : res.writeHead(404).end());
      const missing = await runCli(command, `${server.base}/gone.pco`);
      expect([command, missing.status, missing.stderr]).toEqual([command, 1, `numdecode: not found: ${server.base}/gone.pco\n`]);
      // It looked for the file, then for a directory's marker files; it never read gone.pco/version as a matrix.
      expect(server.state.log.some((l) => l.url === '/gone.pco')).toBe(true);
    }
  } finally {
    await server.close();
  }
});

test('--to npy writes what numpy.load reads: header as NumPy describes it, then the values', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'numdecode-cli-'));
  try {
    for (const [name, dtype, descr] of [['classic_i64_n1000', 'i64', '<i8'], ['classic_f16_n1000', 'f16', '<f2'], ['classic_f32_n1000', 'f32', '<f4']]) {
      const out = path.join(dir, `${name}.npy`);
      const r = run('decode', path.join(pcoDir, `${name}.pco`), '-o', out); // --to from the extension
      expect(r.code).toBe(0);
      const file = readFileSync(out);
      expect(file.subarray(0, 8)).toEqual(Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]));
      const headerLength = file.readUInt16LE(8);
      expect((10 + headerLength) % 64).toBe(0);
      expect(file.subarray(10, 10 + headerLength).toString('latin1')).toMatch(new RegExp(`^\\{'descr': '${descr}', 'fortran_order': False, 'shape': \\(1000,\\), \\} *\\n$`));
      expectSameBytes(new Uint8Array(file.subarray(10 + headerLength)), readBytes(pcoDir, `${name}.bin`), `${name} .npy data`);
      expect(readNpy(new Uint8Array(file)).dtype).toBe(dtype);
      // and encode reads it back
      const back = path.join(dir, `${name}.pco`);
      expect(run('encode', out, '-o', back).code).toBe(0);
      expectSameBytes(new Uint8Array(run('decode', back, '--to', 'bin').stdout), readBytes(pcoDir, `${name}.bin`), `${name} through .npy and back`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--to defaults to -o\'s extension, else csv; --range picks values; --to raw still works as bin, warning once', () => {
  const file = path.join(pcoDir, 'classic_i32_n1000.pco');
  const all = new Int32Array(readBytes(pcoDir, 'classic_i32_n1000.bin').buffer);
  expect(run('decode', file).stdout.toString()).toBe(Array.from(all, (v) => `${v}\n`).join(''));
  expect(run('decode', file, '--range', '10:20:3').stdout.toString()).toBe([10, 13, 16, 19].map((i) => `${all[i]}\n`).join(''));
  expect(JSON.parse(run('decode', file, '--range=-2:', '--to', 'json').stdout.toString())).toEqual({ dtype: 'i32', count: 2, values: Array.from(all.subarray(-2)) });
  const raw = run('decode', file, '--to', 'raw');
  expect(raw.code).toBe(0);
  expectSameBytes(new Uint8Array(raw.stdout), readBytes(pcoDir, 'classic_i32_n1000.bin'), '--to raw');
  expect(raw.stderr.split('numdecode: decode --to raw is deprecated; use --to bin').length - 1).toBe(1);
  // over the limit: the input is too large for it (exit 1, as numdecode zarr), not a usage error
  const big = run('decode', file, '--max-output-bytes', '100');
  expect([big.code, big.stderr]).toEqual([1, 'numdecode: 1000 values take 4000 bytes, more than --max-output-bytes 100 (pick fewer with --range)\n']);
  expect(run('decode', file, '--max-output-bytes', '100', '--range', ':25', '--to', 'bin').stdout.length).toBe(100);
});

test('decode and inspect take the shared I/O options; inspect --max-bytes is --max-read-bytes for every input, warning once', () => {
  const file = path.join(pcoDir, 'classic_i32_n1000.pco');
  const all = new Int32Array(readBytes(pcoDir, 'classic_i32_n1000.bin').buffer);
  const ranged = run('decode', file, '--timeout', '5000', '--concurrency', '2', '--range', '0:2');
  expect([ranged.code, ranged.stdout.toString()]).toEqual([0, `${all[0]}\n${all[1]}\n`]);
  const inspected = run('inspect', file, '--concurrency', '3', '--timeout', '5000');
  expect([inspected.code, JSON.parse(inspected.stdout.toString()).n]).toEqual([0, 1000]);
  const size = readBytes(pcoDir, 'classic_i32_n1000.pco').length;
  // after `--` every argument is INPUT: not renamed (a file may be called --max-bytes)
  const named = run('inspect', '--', '--max-bytes');
  expect([named.code, named.stderr.toString()]).toEqual([1, 'numdecode: not found: --max-bytes\n']);
  const refused = run('inspect', file, '--max-bytes', '10');
  expect(refused.code).toBe(1);
  expect(refused.stderr.toString()).toBe(`numdecode: inspect --max-bytes is deprecated; use --max-read-bytes\nnumdecode: ${file}: ${size} bytes, more than --max-read-bytes 10\n`);
  const parquetFile = path.join(corpusRoot, 'parquet-alp', 'alp_arade.parquet');
  const pq = run('inspect', parquetFile, '--max-bytes', '100000000');
  expect([pq.code, JSON.parse(pq.stdout.toString()).numRows]).toEqual([0, 15000]); // was "Unknown option '--max-bytes'"
});
