// The ALP commands of bin/numdecode.js, run as a user would: a child process, real files, exit codes.
import { expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { corpusRoot, expectSameBytes, projectRoot, readBytes } from '../helpers/corpus.js';

const cli = path.join(projectRoot, 'bin/numdecode.js');
const alpDir = path.join(corpusRoot, 'alp');

function run(...args) {
  const result = spawnSync(process.execPath, [cli, ...args], { maxBuffer: 64 << 20 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr.toString() };
}

function withTempDir(fn) {
  const dir = mkdtempSync(path.join(tmpdir(), 'numdecode-alp-cli-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('decode --format alp writes the raw values to a file and to stdout', () => {
  withTempDir((dir) => {
    const out = path.join(dir, 'values.bin');
    const toFile = run('decode', path.join(alpDir, 'f64_specials_n3000.alp'), '--format', 'alp', '--dtype', 'f64', '-o', out);
    expect(toFile.stderr).toBe('numdecode: 3000 f64 values in 1 chunk(s)\n');
    expect(toFile.code).toBe(0);
    expectSameBytes(new Uint8Array(readFileSync(out)), readBytes(alpDir, 'f64_specials_n3000.bin'), 'decode -o');
  });
  const toStdout = run('decode', '--format', 'alp', '--dtype', 'f32', '--to', 'bin', path.join(alpDir, 'f32_price2_n1025.alp'));
  expect(toStdout.code).toBe(0);
  expectSameBytes(new Uint8Array(toStdout.stdout), readBytes(alpDir, 'f32_price2_n1025.bin'), 'decode to stdout');
});

test('inspect --format alp prints header and vectors as JSON', () => {
  const result = run('inspect', '--format', 'alp', '--dtype', 'f64', path.join(alpDir, 'f64_bwsweep.alp'));
  expect(result.code).toBe(0);
  const info = JSON.parse(result.stdout.toString());
  expect(info).toMatchObject({ layout: 'draft', numElements: 23552, numVectors: 23, logVectorSize: 10, valid: true });
  expect(info.vectors[0]).toHaveProperty('frameOfReference');
  expect(typeof info.vectors[0].frameOfReference).toBe('string'); // i64 as a decimal string
});

test('encode-alp writes a page that decodes back to the input', () => {
  withTempDir((dir) => {
    for (const [bin, dtype, layout] of [
      ['f32_specials_n3000.bin', 'f32', 'draft'],
      ['f64_sensor1_n3000.bin', 'f64', 'merged'],
    ]) {
      const page = path.join(dir, `${dtype}.alp`);
      const back = path.join(dir, `${dtype}.bin`);
      const enc = run('encode-alp', path.join(alpDir, bin), '--dtype', dtype, '-o', page, '--layout', layout);
      expect(enc.stderr).toBe('');
      expect(enc.code).toBe(0);
      expect(readFileSync(page)[0]).toBe(layout === 'draft' ? 1 : 0);
      const dec = run('decode', page, '--format', 'alp', '--dtype', dtype, '-o', back);
      expect(dec.code).toBe(0);
      expectSameBytes(new Uint8Array(readFileSync(back)), readBytes(alpDir, bin), `${bin} round trip`);
    }
  });
});

test('ALP errors: one line, exit 1; usage errors exit 2', () => {
  const bad = run('decode', '--format', 'alp', '--dtype', 'f32', path.join(alpDir, 'corrupt/f32_bitwidth_33.alp'));
  expect(bad.code).toBe(1);
  expect(bad.stdout.length).toBe(0);
  expect(bad.stderr).toMatch(/^numdecode: ALP vector 0: bit width 33 exceeds 32 for f32\n$/);

  const noDtype = run('inspect', '--format', 'alp', path.join(alpDir, 'f32_n1.alp'));
  expect(noDtype.code).toBe(2);
  expect(noDtype.stderr).toMatch(/--dtype f32 or --dtype f64/);

  withTempDir((dir) => {
    const odd = path.join(dir, 'odd.bin');
    writeFileSync(odd, new Uint8Array(7));
    const r = run('encode-alp', odd, '--dtype', 'f32', '-o', path.join(dir, 'x.alp'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/7 bytes is not a whole number of f32 values/);
  });
  for (const args of [['encode-alp'], ['encode-alp', 'x.bin', '--dtype', 'f16', '-o', 'y'], ['encode-alp', 'x.bin', '--dtype', 'f32']]) {
    const r = run(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^numdecode: .*\nUsage: numdecode encode-alp/);
  }
});
