// js/sniff.js: the one place where formats are told apart (library, CLI, demo), on corpus files.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SNIFF_BYTES, ZARR_MARKERS, formatFromName, sniffBytes, sniffDirectory } from '../../../js/sniff.js';
import { corpusRoot } from '../helpers/corpus.js';

const head = (rel) => new Uint8Array(readFileSync(path.join(corpusRoot, rel))).subarray(0, SNIFF_BYTES);
const h5 = head('bpcells-hdf5/chunk_boundary_cols/matrix.h5');

test('file signatures: Pco, Parquet, HDF5; an ALP page and short or empty input have none', () => {
  expect(sniffBytes(head('pco/classic_f64_n1000.pco'))).toBe('pco');
  expect(sniffBytes(head('parquet-alp/alp_arade.parquet'))).toBe('parquet');
  expect(sniffBytes(h5)).toBe('hdf5');
  expect(sniffBytes(head('alp/f64_bw64_n2048.alp'))).toBe(null);
  expect(sniffBytes(new Uint8Array(0))).toBe(null);
  expect(sniffBytes(Uint8Array.of(0x70, 0x63, 0x6f))).toBe(null); // "pco" without its "!"
});

test('an HDF5 signature after a user block of 512, 1024 or 8192 bytes counts; one at another offset does not', () => {
  for (const [offset, want] of [[512, 'hdf5'], [1024, 'hdf5'], [8192, 'hdf5'], [100, null], [768, null]]) {
    const bytes = new Uint8Array(SNIFF_BYTES);
    bytes.set(h5.subarray(0, SNIFF_BYTES - offset), offset);
    expect([offset, sniffBytes(bytes)]).toEqual([offset, want]);
  }
});

test('directories: Zarr v2 and v3 store roots, a BPCells matrix directory, and neither', () => {
  const names = (rel) => readdirSync(path.join(corpusRoot, rel));
  expect(sniffDirectory(names('zarr-pcodec/stores/era5_like_v2.zarr'))).toBe('zarr');
  expect(sniffDirectory(names('zarr-pcodec/stores/era5_like_v3.zarr'))).toBe('zarr');
  expect(sniffDirectory(names('bpcells/packed_float_col_names/matrix'))).toBe('bpcells');
  expect(sniffDirectory(names('bpcells/packed_float_col_names'))).toBe(null); // its parent: expected/ and matrix/
  for (const marker of ZARR_MARKERS) expect(sniffDirectory(['c', marker])).toBe('zarr');
});

test('names: a path in or at a .zarr store, .parquet, .h5/.hdf5/.he5, paths and URLs alike; query strings ignored', () => {
  expect(formatFromName('https://host/data/era5.zarr')).toBe('zarr');
  expect(formatFromName('https://host/data/era5.zarr/t2m/zarr.json')).toBe('zarr');
  expect(formatFromName('/data/era5.ZARR/')).toBe('zarr');
  expect(formatFromName('https://host/x.parquet?token=1#frag')).toBe('parquet');
  expect(formatFromName(new URL('https://host/pbmc.h5'))).toBe('hdf5');
  expect(formatFromName('matrix.hdf5')).toBe('hdf5');
  expect(formatFromName('https://host/matrix/')).toBe(null);
  expect(formatFromName('https://host/file.parquet.gz')).toBe(null);
});
