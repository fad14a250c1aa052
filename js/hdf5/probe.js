// Whether a byte file is HDF5, from its first bytes (over HTTP one request that also tells the size).
import { readHead } from '../io/head.js';
import { HEAD_BYTES, signatureOffset } from './signature.js';

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

