// The BPCells part of the CLI (a directory format, or groups of an HDF5 file):
//   numdecode inspect DIR_OR_URL                      JSON summary of a matrix directory
//   numdecode inspect FILE.h5 [--group G]             the file's matrix groups (list); with G, that matrix
//   numdecode bpcells DIR_OR_URL_OR_H5 [--group G] [--export OUTDIR] [--range a:b] [--max-bytes N] [--timeout MS]
// --export writes idxptr.u64, index.u32, val.<u32|f32|f64> (raw little-endian, the stored
// orientation: CSC for storage_order=col, CSR for row) and shape.json.
import { statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import * as bpcells from '../bpcells/index.js';
import { bytesOf } from '../bytes.js';
import { sniffPath } from './input.js';

export const name = 'bpcells';
export const usage =
  '  numdecode inspect DIR_OR_URL\n' +
  '      print a BPCells matrix directory summary as JSON (version, shape, order, nnz, dtype, bytes per array, compression)\n' +
  '  numdecode inspect FILE.h5 [--group G]\n' +
  '      the BPCells matrix groups of an HDF5 file (write_matrix_hdf5) as JSON; with --group, that matrix\n' +
  '  numdecode bpcells DIR_OR_URL_OR_H5 [--group G] [--export OUTDIR] [--range a:b] [--max-bytes N] [--timeout MS]\n' +
  '      without --export: the same JSON; with it: write idxptr.u64, index.u32, val.<u32|f32|f64>, shape.json\n' +
  '      for storage-axis positions a..b (columns for storage_order=col, rows for row; default all)\n';

/** An error in how the command was called (exit code 2). */
export class BpcellsUsageError extends Error {
  constructor(message) {
    super(message);
    this.usage = true;
  }
}

// True for a local file with the HDF5 signature (at 0, 512, 1024, ...: after a user block).
function isLocalHdf5(arg) {
  return sniffPath(arg) === 'hdf5';
}

/** True for an http(s) URL, a local directory or a local HDF5 file (the file formats take other files). */
export function isTarget(arg) {
  if (typeof arg !== 'string') return false;
  if (/^https?:\/\//i.test(arg)) return true;
  try {
    if (statSync(arg).isDirectory()) return true;
  } catch {
    return false;
  }
  return isLocalHdf5(arg);
}

function openOptions(values) {
  const options = {};
  if (values.group !== undefined) options.group = values.group;
  for (const [flag, key] of [
    ['max-bytes', 'maxBytes'],
    ['timeout', 'timeout'],
  ]) {
    if (values[flag] === undefined) continue;
    const n = Number(values[flag]);
    if (!Number.isFinite(n) || n <= 0) throw new BpcellsUsageError(`--${flag} must be a positive number, got ${values[flag]}`);
    options[key] = n;
  }
  return options;
}

const FILES_OF_INDEX = /^index(_data|_idx|_idx_offsets|_starts)?$/;
const FILES_OF_VAL = /^val(_data|_idx|_idx_offsets)?$/;

/**
 * The JSON summary of a matrix directory or HDF5 matrix group; for an HDF5 file without
 * options.group, the list of its matrix groups ({source, hdf5: true, groups}).
 */
export async function inspect(target, options = {}) {
  if (options.group === undefined && (isLocalHdf5(target) || (/^https?:\/\//i.test(target) && /\.[^/]+$/.test(new URL(target).pathname)))) {
    // Not HDF5 after all (a URL with a dot that is a directory): list() says so in err.notHdf5.
    const groups = await bpcells.list(target, options).catch((err) => (err?.notHdf5 === true ? null : Promise.reject(err)));
    if (groups) return { source: String(target), hdf5: true, groups };
  }
  const m = await bpcells.open(target, options);
  const files = await m.fileSizes();
  const sum = (re) => Object.entries(files).reduce((s, [n, b]) => s + (re.test(n) ? b : 0), 0);
  const elem = m.dtype === 'f64' ? 8 : 4;
  const stored = { idxptr: files.idxptr, index: sum(FILES_OF_INDEX), val: sum(FILES_OF_VAL) };
  // What the same arrays take uncompressed (the `unpacked-*-v2` files: 8-byte header + values).
  const raw = { idxptr: 8 + 8 * (m.major + 1), index: 8 + 4 * m.nnz, val: 8 + elem * m.nnz };
  const ratio = (a, b) => (b === 0 ? null : Number((a / b).toFixed(4)));
  return {
    source: String(target),
    ...(m.group ? { group: m.group, bytes_note: 'HDF5: bytes are the arrays uncompressed (8-byte header + values), not the stored dataset sizes' } : {}),
    version: m.version,
    format: m.format,
    packed: m.packed,
    shape: m.shape,
    storage_order: m.storageOrder,
    nnz: m.nnz,
    dtype: m.dtype,
    bytes: files,
    bytes_total: Object.values(files).reduce((s, b) => s + b, 0),
    arrays: {
      index: { stored_bytes: stored.index, raw_bytes: raw.index, compression_ratio: ratio(raw.index, stored.index) },
      val: { stored_bytes: stored.val, raw_bytes: raw.val, compression_ratio: ratio(raw.val, stored.val) },
      idxptr: { stored_bytes: stored.idxptr, raw_bytes: raw.idxptr },
    },
    compression_ratio: ratio(raw.index + raw.val, stored.index + stored.val),
  };
}

function parseRange(text, major) {
  const m = /^(\d*):(\d*)$/.exec(text);
  if (!m) throw new BpcellsUsageError(`--range must look like a:b (either side may be empty), got ${JSON.stringify(text)}`);
  const a = m[1] === '' ? 0 : Number(m[1]);
  const b = m[2] === '' ? major : Number(m[2]);
  if (!(a <= b && b <= major)) throw new BpcellsUsageError(`--range ${text}: need 0 <= a <= b <= ${major}`);
  return [a, b];
}

/** Writes the decoded arrays of positions [a, b) to outDir; returns the shape.json object. */
export async function exportMatrix(target, outDir, rangeText, options = {}) {
  const m = await bpcells.open(target, options);
  const [a, b] = rangeText === undefined ? [0, m.major] : parseRange(rangeText, m.major);
  const { idxptr, index, val } = await m.read(a, b);
  const ptr = BigUint64Array.from(idxptr, (x) => BigInt(x));
  await mkdir(outDir, { recursive: true });
  const info = {
    version: m.version,
    shape: m.shape,
    storage_order: m.storageOrder,
    layout: m.storageOrder === 'col' ? 'CSC' : 'CSR',
    range: [a, b],
    slice_shape: m.storageOrder === 'col' ? [m.shape[0], b - a] : [b - a, m.shape[1]],
    nnz: index.length,
    dtype: m.dtype,
    files: { idxptr: 'idxptr.u64', index: 'index.u32', val: `val.${m.dtype}` },
  };
  await Promise.all([
    writeFile(path.join(outDir, 'idxptr.u64'), bytesOf(ptr)),
    writeFile(path.join(outDir, 'index.u32'), bytesOf(index)),
    writeFile(path.join(outDir, `val.${m.dtype}`), bytesOf(val)),
    writeFile(path.join(outDir, 'shape.json'), JSON.stringify(info, null, 2) + '\n'),
  ]);
  return info;
}

const OPTIONS = {
  group: { type: 'string' },
  export: { type: 'string' },
  range: { type: 'string' },
  'max-bytes': { type: 'string' },
  timeout: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

/** `numdecode bpcells ...` */
export async function run(argv, out = process.stdout) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new BpcellsUsageError(err.message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out.write(`Usage:\n${usage}`);
    return;
  }
  if (positionals.length !== 1) throw new BpcellsUsageError(`bpcells needs exactly one DIR_OR_URL, got ${positionals.length}`);
  const options = openOptions(values);
  if (values.export === undefined) {
    if (values.range !== undefined) throw new BpcellsUsageError('--range needs --export OUTDIR');
    out.write(JSON.stringify(await inspect(positionals[0], options), null, 2) + '\n');
    return;
  }
  const info = await exportMatrix(positionals[0], values.export, values.range, options);
  out.write(JSON.stringify(info, null, 2) + '\n');
}

/** `numdecode inspect DIR_OR_URL` (the dispatcher routes here when isTarget() is true). */
export async function runInspect(argv, out = process.stdout) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { group: OPTIONS.group, 'max-bytes': OPTIONS['max-bytes'], timeout: OPTIONS.timeout }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new BpcellsUsageError(err.message);
  }
  if (parsed.positionals.length !== 1) throw new BpcellsUsageError(`inspect needs exactly one DIR_OR_URL, got ${parsed.positionals.length}`);
  out.write(JSON.stringify(await inspect(parsed.positionals[0], openOptions(parsed.values)), null, 2) + '\n');
}
