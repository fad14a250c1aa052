// bin/numdecode.js run as a user would: a child process, real files, exit codes.
import { expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expectSameBytes, pcoDir, projectRoot, readBytes } from './corpus.js';

const cli = path.join(projectRoot, 'bin/numdecode.js');

function run(...args) {
  const result = spawnSync(process.execPath, [cli, ...args], { maxBuffer: 64 << 20 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr.toString() };
}

test('decode writes the raw values to a file and to stdout', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'numdecode-cli-'));
  try {
    const out = path.join(dir, 'values.bin');
    const file = path.join(pcoDir, 'multichunk_i32_4chunks.pco');
    const toFile = run('decode', file, '-o', out);
    expect(toFile.stderr).toBe('');
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
  expect(help.stdout.toString()).toMatch(/numdecode decode .*FILE \[-o OUT\]/);
  const version = run('--version');
  const pkg = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8'));
  expect(version.stdout.toString()).toBe(`numdecode ${pkg.version}\n`);
});
