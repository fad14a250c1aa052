// Test helpers: the shared corpus, read in place (never copied into the project).
// Paths resolve from this file, so tests work from any working directory.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const corpusRoot = process.env.NUMDECODE_CORPUS_DIR
  ? path.resolve(process.env.NUMDECODE_CORPUS_DIR)
  : path.resolve(projectRoot, '../shared/corpus');
export const pcoDir = path.join(corpusRoot, 'pco');

/** A corpus file as a Uint8Array; the path is relative to the corpus set directory. */
export function readBytes(dir, relPath) {
  return new Uint8Array(readFileSync(path.join(dir, relPath)));
}

export function readJson(dir, relPath) {
  return JSON.parse(readFileSync(path.join(dir, relPath), 'utf8'));
}

/** The Pco cases: manifest.json entries. */
export function pcoCases() {
  return readJson(pcoDir, 'manifest.json');
}

/** The damaged Pco files: corrupt/manifest.json cases (file paths relative to pcoDir). */
export function pcoCorruptCases() {
  return readJson(pcoDir, 'corrupt/manifest.json').cases;
}

export function sha256(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The bytes behind a typed array (no copy). */
export function bytesOf(typed) {
  return new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
}

export function concatBytes(parts) {
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** Fails with the first differing byte, so a mismatch says where it is. */
export function expectSameBytes(actual, expected, what) {
  if (actual.byteLength === expected.byteLength) {
    let i = 0;
    while (i < actual.byteLength && actual[i] === expected[i]) i++;
    if (i === actual.byteLength) return;
    throw new Error(`${what}: first difference at byte ${i} of ${actual.byteLength} (got ${actual[i]}, want ${expected[i]})`);
  }
  throw new Error(`${what}: got ${actual.byteLength} bytes, want ${expected.byteLength}`);
}
