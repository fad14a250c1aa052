// numdecode encode, run as a user would: a child process, real files, exit codes. Raw bytes, CSV
// and .npy in; Pco files out that decode to the same values.
import { beforeAll, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { init, pco } from '../../../js/index.js';
import { bytesOf, expectSameBytes, pcoDir, projectRoot, readBytes } from '../helpers/corpus.js';

const cli = path.join(projectRoot, 'bin/numdecode.js');

beforeAll(() => init({ formats: ['pco'] }));

function run(args, input) {
  const result = spawnSync(process.execPath, [cli, ...args], { maxBuffer: 64 << 20, input });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr.toString() };
}

function withTempDir(fn) {
  const dir = mkdtempSync(path.join(tmpdir(), 'numdecode-pco-encode-cli-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// A .npy file (format 1.0) of little- or big-endian values, as numpy.save writes it.
function npy(descr, shape, littleEndianBytes, width) {
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const data = new Uint8Array(littleEndianBytes);
  if (descr.startsWith('>')) for (let i = 0; i < data.length; i += width) data.subarray(i, i + width).reverse();
  const out = new Uint8Array(10 + header.length + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 0xff, header.length >> 8]);
  out.set(new TextEncoder().encode(header), 10);
  out.set(data, 10 + header.length);
  return out;
}

test('raw little-endian values with --dtype: the file decodes to the same bytes', () => {
  withTempDir((dir) => {
    const out = path.join(dir, 'out.pco');
    const result = run(['encode', '--dtype', 'i32', path.join(pcoDir, 'intmult_i32_mult7.bin'), '-o', out]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^numdecode: 5000 i32 values -> \d+ bytes in 1 chunk\(s\) \(IntMult\(7\) \+ None\)\n$/);
    expectSameBytes(bytesOf(pco.decode(new Uint8Array(readFileSync(out)))), readBytes(pcoDir, 'intmult_i32_mult7.bin'), 'raw i32');
  });
});

test('options: level, mode, delta and chunk size reach the file; standard input and output', () => {
  const raw = readBytes(pcoDir, 'consec2_i64.bin');
  const result = run(['encode', '--dtype', 'i64', '--level', '3', '--mode', 'classic', '--delta', 'consecutive:3', '--chunk-size', '1000', '-', '-o', '-'], raw);
  expect(result.code).toBe(0);
  const file = new Uint8Array(result.stdout);
  const info = pco.inspect(file);
  expect(info.chunks.map((c) => c.n)).toEqual([1000, 1000, 1000]);
  expect(info.chunks[0].delta).toMatchObject({ name: 'Consecutive', order: 3 });
  expectSameBytes(bytesOf(pco.decode(file)), raw, 'stdin i64');
  const mult = run(['encode', '--dtype', 'f64', '--mode', 'floatMult:0.01', '--delta', 'none', path.join(pcoDir, 'floatmult_f64_2dec.bin'), '-o', '-']);
  expect(pco.inspect(new Uint8Array(mult.stdout)).chunks[0].mode).toEqual({ name: 'FloatMult', base: 0.01 });
});

test('a CSV of one value per line, with a header; NaN and infinities; f16 rounded to its nearest bits', () => {
  withTempDir((dir) => {
    const csv = path.join(dir, 'values.csv');
    writeFileSync(csv, 'temperature\n1.5\n-2.25\nnan\n-inf\n\n1e-300\n');
    expect(run(['encode', '--dtype', 'f64', csv, '-o', path.join(dir, 'f64.pco')]).code).toBe(0);
    expect([...pco.decode(new Uint8Array(readFileSync(path.join(dir, 'f64.pco'))))]).toEqual([1.5, -2.25, NaN, -Infinity, 1e-300]);
    expect(run(['encode', '--dtype', 'f16', csv, '-o', path.join(dir, 'f16.pco')]).code).toBe(0);
    // 1.5, -2.25, NaN (quiet), -inf, and 1e-300 rounded to +0 in half precision.
    expect([...pco.decode(new Uint8Array(readFileSync(path.join(dir, 'f16.pco'))))]).toEqual([0x3e00, 0xc080, 0x7e00, 0xfc00, 0]);
    writeFileSync(csv, '18446744073709551615\n0\n');
    expect(run(['encode', '--dtype', 'u64', csv, '-o', path.join(dir, 'u64.pco')]).code).toBe(0);
    expect([...pco.decode(new Uint8Array(readFileSync(path.join(dir, 'u64.pco'))))]).toEqual([2n ** 64n - 1n, 0n]);
    writeFileSync(csv, '1\n300\n');
    const bad = run(['encode', '--dtype', 'u8', csv, '-o', path.join(dir, 'u8.pco')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('line 2: "300" is not a u8 value');
  });
});

test('.npy files: their own dtype, big-endian too', () => {
  withTempDir((dir) => {
    const values = Int32Array.from({ length: 1000 }, (_, i) => i * 7 - 3000);
    const file = path.join(dir, 'a.npy');
    writeFileSync(file, npy('>i4', [10, 100], bytesOf(values), 4));
    const result = run(['encode', file, '-o', path.join(dir, 'a.pco')]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/1000 i32 values/);
    expectSameBytes(bytesOf(pco.decode(new Uint8Array(readFileSync(path.join(dir, 'a.pco'))))), bytesOf(values), 'npy >i4');
    const halfs = new Uint16Array([0x3c00, 0x7bff, 0x8001]);
    writeFileSync(file, npy('<f2', [3], bytesOf(halfs), 2));
    expect(run(['encode', file, '-o', path.join(dir, 'h.pco')]).code).toBe(0);
    const h = new Uint8Array(readFileSync(path.join(dir, 'h.pco')));
    expect(pco.inspect(h).uniformDtype).toBe('f16');
    expect([...pco.decode(h)]).toEqual([0x3c00, 0x7bff, 0x8001]);
    expect(run(['encode', '--dtype', 'f64', file, '-o', path.join(dir, 'x.pco')]).code).toBe(2); // the file says f16
    writeFileSync(file, npy('<c8', [1], new Uint8Array(8), 8));
    const complex = run(['encode', file, '-o', path.join(dir, 'x.pco')]);
    expect(complex.code).toBe(1);
    expect(complex.stderr).toContain('not a number type Pco stores');
  });
});

test('usage errors exit 2 and say what is wrong', () => {
  const raw = path.join(pcoDir, 'intmult_i32_mult7.bin');
  for (const [args, message] of [
    [['encode', raw, '-o', '-'], 'raw input needs --dtype'],
    [['encode', '--dtype', 'i32', raw], 'needs -o OUT.pco'],
    [['encode', '--dtype', 'i32', '--level', '13', raw, '-o', '-'], 'options.level must be from 0 to 12, got 13'],
    [['encode', '--dtype', 'i32', '--mode', 'floatMult:2', raw, '-o', '-'], 'floatMult applies to float dtypes'],
    [['encode', '--dtype', 'i32', '--delta', 'lookback:2', raw, '-o', '-'], 'only consecutive and conv1 take an order'],
    [['encode', '--to', 'alp', '--dtype', 'f64', raw, '-o', '-'], 'encode writes Pco only (--to pco)'],
    [['encode', '--format', 'alp', '--dtype', 'f64', raw, '-o', '-'], 'encode writes Pco only'],
    [['encode', '--format', 'xml', '--dtype', 'f64', raw, '-o', '-'], '--format must be bin, csv or npy'],
    [['encode', '--dtype', 'q8', raw, '-o', '-'], '--dtype must be one of'],
  ]) {
    const result = run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  }
  const odd = run(['encode', '--dtype', 'i64', raw, '-o', '-']);
  expect(odd.code).toBe(0); // 20000 bytes are 2500 i64 values
  const ragged = run(['encode', '--dtype', 'f64', '-', '-o', '-'], new Uint8Array(7));
  expect(ragged.code).toBe(1);
  expect(ragged.stderr).toContain('7 bytes is not a whole number of f64 values');
});

test('--format forces the input format; the old --input and --format pco still work, warning once', () => {
  withTempDir((dir) => {
    // A CSV under a name that says nothing: --format csv reads it as lines of numbers.
    const lines = path.join(dir, 'values.dat');
    writeFileSync(lines, '1.5\n-2\n3.25\n');
    const now = run(['encode', lines, '--format', 'csv', '--dtype', 'f64', '-o', '-', '--to', 'pco']);
    expect(now.code).toBe(0);
    expect(Array.from(pco.decode(new Uint8Array(now.stdout)))).toEqual([1.5, -2, 3.25]);
    const old = run(['encode', lines, '--input', 'csv', '--format', 'pco', '--dtype', 'f64', '-o', '-']);
    expect(old.code).toBe(0);
    expect(Buffer.from(old.stdout).equals(Buffer.from(now.stdout))).toBe(true);
    for (const [name, instead] of [['encode --input', '--format'], ['encode --format pco', '--to pco']]) {
      expect(old.stderr.split(`numdecode: ${name} is deprecated; use ${instead}`).length - 1).toBe(1);
    }
    // bin is the vocabulary's name for raw little-endian values
    const raw = path.join(pcoDir, 'intmult_i32_mult7.bin');
    const bin = run(['encode', raw, '--format', 'bin', '--dtype', 'i32', '-o', '-']);
    expect(bin.code).toBe(0);
    expectSameBytes(bytesOf(pco.decode(new Uint8Array(bin.stdout))), readBytes(pcoDir, 'intmult_i32_mult7.bin'), '--format bin');
  });
});
