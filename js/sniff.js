// What a file or directory holds, told from its first bytes or the names in it: the one place
// where the library, the CLI and the demo recognise formats, so that they cannot disagree.
import { HEAD_BYTES, signatureOffset } from './hdf5/signature.js';

/** How many leading bytes sniffBytes() needs: HDF5's signature may follow a user block of 512, 1024, ... bytes. */
export const SNIFF_BYTES = HEAD_BYTES;

/** Every format the sniff recognises, by the name a message shows (the list "checked: ..." prints). */
export const FORMAT_NAMES = Object.freeze({ pco: 'Pco', parquet: 'Parquet', hdf5: 'HDF5', zarr: 'Zarr', bpcells: 'BPCells directory' });

const PCO_MAGIC = [0x70, 0x63, 0x6f, 0x21]; // "pco!"
const PARQUET_MAGIC = [0x50, 0x41, 0x52, 0x31]; // "PAR1"

const startsWith = (bytes, magic) => bytes.length >= magic.length && magic.every((b, i) => bytes[i] === b);

/**
 * 'pco', 'parquet' or 'hdf5' when `head` (a file's first bytes, SNIFF_BYTES of them to see every
 * HDF5 user block size) carries that format's signature; null otherwise (ALP pages have none).
 * @param {Uint8Array} head
 * @returns {'pco'|'parquet'|'hdf5'|null}
 */
export function sniffBytes(head) {
  if (startsWith(head, PCO_MAGIC)) return 'pco';
  if (startsWith(head, PARQUET_MAGIC)) return 'parquet';
  if (signatureOffset(head) >= 0) return 'hdf5';
  return null;
}

/** File names that mark the root of a Zarr store: v3 zarr.json, v2 .zgroup / .zarray, consolidated .zmetadata. */
export const ZARR_MARKERS = Object.freeze(['zarr.json', '.zgroup', '.zarray', '.zmetadata']);

/**
 * 'zarr' for a Zarr store's root, 'bpcells' for a BPCells matrix directory (it has a `version`
 * file, the first thing the reader opens), else null; from the names of the files directly in it.
 * @param {Iterable<string>} names
 * @returns {'zarr'|'bpcells'|null}
 */
export function sniffDirectory(names) {
  const set = new Set(names);
  if (ZARR_MARKERS.some((name) => set.has(name))) return 'zarr';
  if (set.has('version')) return 'bpcells';
  return null;
}

/**
 * The format a path or URL's name suggests, for what cannot be read yet: 'zarr' for a path in or
 * at a `.zarr` store, 'parquet' for `.parquet`, 'hdf5' for `.h5`, `.hdf5`, `.he5`; else null. The
 * bytes decide wherever they are at hand (sniffBytes).
 * @param {string|URL} pathOrUrl
 * @returns {'zarr'|'parquet'|'hdf5'|null}
 */
export function formatFromName(pathOrUrl) {
  const text = String(pathOrUrl);
  const name = /^[a-z][a-z\d+.-]*:\/\//i.test(text) ? new URL(text).pathname : text;
  if (/\.zarr(\/|\\|$)/i.test(name)) return 'zarr';
  if (/\.parquet$/i.test(name)) return 'parquet';
  if (/\.(h5|hdf5|he5)$/i.test(name)) return 'hdf5';
  return null;
}
