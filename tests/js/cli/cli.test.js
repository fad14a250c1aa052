// bin/numdecode.js run as a user would: a child process, real files, exit codes.
import { expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
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

    const toStdout = run('decode', '--format', 'pco', path.join(pcoDir, 'classic_f16_n1000.pco'));
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

test('a missing file exits 1 with one line', () => {
  const result = run('inspect', path.join(pcoDir, 'no-such-file.pco'));
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/^numdecode: ENOENT.*no-such-file\.pco.*\n$/);
});

test('bad usage prints the usage and exits 2', () => {
  for (const args of [[], ['frobnicate'], ['decode', '--bogus', 'x'], ['decode'], ['inspect', '--format', 'zip', 'x']]) {
    const result = run(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^numdecode: .*\nUsage:\n/);
  }
});

test('--help and --version', () => {
  const help = run('--help');
  expect(help.code).toBe(0);
  expect(help.stdout.toString()).toMatch(/numdecode decode .*FILE\|- \[-o OUT\]/);
  for (const command of ['encode-alp', 'bpcells', 'zarr', 'parquet']) expect(help.stdout.toString()).toContain(`numdecode ${command}`);
  const version = run('--version');
  const pkg = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8'));
  expect(version.stdout.toString()).toBe(`numdecode ${pkg.version}\n`);
});

test('decode - reads standard input; the format is told by the magic', () => {
  const bytes = readBytes(pcoDir, 'classic_f64_n1000.pco');
  const r = runWithInput(bytes, 'decode', '-');
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

test('mixed-dtype files: raw output needs --chunk N; --to json keeps the chunks apart', () => {
  // Spliced like the API test does: the i32 file's header and chunk, the f32 file's chunk, the end byte.
  const a = readBytes(pcoDir, 'classic_i32_n1000.pco');
  const b = readBytes(pcoDir, 'classic_f32_n1000.pco');
  const [, aEnd] = pcoChunkRange(a);
  const [bStart, bEnd] = pcoChunkRange(b);
  const dir = mkdtempSync(path.join(tmpdir(), 'numdecode-cli-'));
  const file = path.join(dir, 'mixed.pco');
  writeFileSync(file, Buffer.concat([a.subarray(0, aEnd), b.subarray(bStart, bEnd), Buffer.from([0])]));
  const raw = run('decode', file);
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

test('containers are pointed to their commands; a missing ALP dtype is a usage error', () => {
  const parquet = run('decode', path.join(projectRoot, '../shared/corpus/parquet-alp/alp_arade.parquet'));
  expect(parquet.code).toBe(2);
  expect(parquet.stderr).toMatch(/Parquet file: read it with numdecode parquet/);
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
    expect([hdf5.code, hdf5.stderr]).toEqual([2, expect.stringMatching(/this is an HDF5 file: read a BPCells matrix in it with numdecode bpcells/)]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const zarr = run('inspect', path.join(corpusRoot, 'zarr-pcodec/stores/era5_like_v2.zarr'));
  expect([zarr.code, zarr.stderr]).toEqual([2, expect.stringMatching(/this is a Zarr store: list it with numdecode zarr DIR/)]);
});
