// Big standalone Pco files from a corpus file's real chunk: the chunk's bytes repeated `times`
// times behind the file's header, with the header's n_hint rewritten to the new count, so a test
// can decode millions of values that the reference pcodec wrote (each chunk is self-contained).
import { pcoDir, readBytes } from './corpus.js';

// Bits are little-endian in Pco: bit i of the stream is bit (i % 8) of byte i / 8.
function readBits(bytes, at, n) {
  let v = 0n;
  for (let i = 0; i < n; i++) v |= BigInt((bytes[(at + i) >> 3] >> ((at + i) & 7)) & 1) << BigInt(i);
  return v;
}

function writeBits(bytes, at, n, value) {
  for (let i = 0; i < n; i++) if ((value >> BigInt(i)) & 1n) bytes[(at + i) >> 3] |= 1 << ((at + i) & 7);
}

/**
 * `name` (a one-chunk standalone v3 corpus file) with its chunk repeated `times` times.
 * inspect: pco.inspect, to find the chunk's byte range. Returns {bytes, values, expected} where
 * expected(i) is the corpus' expected bytes of value i's chunk (the same for every copy).
 */
export function tiledPcoFile(inspect, name, times) {
  const file = readBytes(pcoDir, `${name}.pco`);
  const info = inspect(file);
  if (info.standaloneVersion !== 3 || info.chunks.length !== 1) throw new Error(`${name}: need a one-chunk standalone v3 file`);
  const [chunkStart, chunkEnd] = info.chunks[0].byteRange;
  // Header: "pco!", version byte, uniform dtype byte, then 6 bits (n_hint's bit count - 1), n_hint, zero bits to a byte.
  const power = Number(readBits(file, 6 * 8, 6)) + 1;
  const nHintEnd = Math.ceil((6 * 8 + 6 + power) / 8);
  const n = info.n * times;
  const head = new Uint8Array(6 + 5); // 6 + 32 bits of n_hint, padded to 5 bytes
  head.set(file.subarray(0, 6));
  writeBits(head, 6 * 8, 6, 31n);
  writeBits(head, 6 * 8 + 6, 32, BigInt(n));
  const rest = file.subarray(nHintEnd, chunkStart); // the format header
  const chunk = file.subarray(chunkStart, chunkEnd);
  const bytes = new Uint8Array(head.length + rest.length + chunk.length * times + 1);
  bytes.set(head, 0);
  bytes.set(rest, head.length);
  for (let i = 0, at = head.length + rest.length; i < times; i++, at += chunk.length) bytes.set(chunk, at);
  // the last byte stays 0: the termination byte
  return { bytes, n, chunkValues: info.n, expectedChunk: readBytes(pcoDir, `${name}.bin`) };
}
