// The HDF5 file signature, found at offset 0, 512, 1024, 2048, ... (after a user block). Pure bytes:
// js/sniff.js (base layer) uses it; reading a file's head is js/hdf5/probe.js's.
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
