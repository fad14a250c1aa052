// The HDF5 file signature, found at offset 0, 512, 1024, 2048, ... (after a user block).
import { readHead } from '../io/head.js';

const SIGNATURE = [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]; // "\x89HDF\r\n\x1a\n"
/** Bytes read first from an async source: signature search, superblock and root metadata. */
export const HEAD_BYTES = 16 * 1024;
/** The offset of the HDF5 signature in `head` (0, 512, 1024, ...), or -1. */
export function signatureOffset(head) {
  for (let off = 0; off + 8 <= head.length; off = off === 0 ? 512 : off * 2) {
    let ok = true;
    for (let i = 0; i < 8 && ok; i++) ok = head[off + i] === SIGNATURE[i];
    if (ok) return off;
  }
  return -1;
}

/**
 * Reads the first bytes of a byte file; {size, head, hdf5} where hdf5 says whether the HDF5
 * signature is there (head is null for files read synchronously).
 */
export async function probe(file) {
  if (!file.readSync) {
    // One request over HTTP: the first bytes and, from their Content-Range, the size.
    const { size, bytes: head } = await readHead(file, HEAD_BYTES);
    return { size, head, hdf5: signatureOffset(head) >= 0 };
  }
  // Synchronous files: 8 bytes at each candidate offset, nothing more (no cache to fill).
  const size = await file.size();
  for (let off = 0; off + 8 <= Math.min(size, HEAD_BYTES); off = off === 0 ? 512 : off * 2) {
    if (signatureOffset(file.readSync(off, off + 8)) === 0) return { size, head: null, hdf5: true };
  }
  return { size, head: null, hdf5: false };
}

