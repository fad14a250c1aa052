// The BPCells part of the CLI (a directory format, or groups of an HDF5 file):
//   numdecode inspect INPUT [--group G]     JSON summary of a matrix directory; an HDF5 file's matrix groups
//   numdecode bpcells INPUT [--group G] [--export OUTDIR] [--range a:b] [--max-read-bytes N] [--timeout MS] [--concurrency N]
// --export writes idxptr.u64, index.u32, val.<u32|f32|f64> (raw little-endian, the stored
// orientation: CSC for storage_order=col, CSR for row) and shape.json.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as bpcells from '../bpcells/index.js';
import { bytesOf } from '../bytes.js';
import { ioOptionsOf } from '../io/options.js';
import { locateInput, notAFormat } from './input.js';
import { writeOutput } from './output.js';
import { CliUsageError, aliasOption, ioOptionsFromFlags, oneAxisRange, outputFormat, parseCommand, sharedHelp } from './vocabulary.js';

export const name = 'bpcells';
const SHARED = ['format', 'to', 'output', 'range', 'max-read-bytes', 'timeout', 'concurrency', 'help'];
const OWN = { group: { type: 'string' }, export: { type: 'string' } };
const ALIASES = { 'max-bytes': { type: 'string' } }; // deprecated: --max-read-bytes

export const usage =
  '  numdecode inspect INPUT [--group G]\n' +
  '      a BPCells matrix directory (path or URL) as JSON: version, shape, order, nnz, dtype, bytes per array,\n' +
  '      compression; an HDF5 file (write_matrix_hdf5): its matrix groups, or with --group that matrix\n' +
  '  numdecode bpcells INPUT [--group G] [--export OUTDIR] [--range a:b] [-o OUT]\n' +
  '      without --export: the same JSON (--to json); with it: write idxptr.u64, index.u32, val.<u32|f32|f64>,\n' +
  '      shape.json for storage-axis positions a:b (columns for storage_order=col, rows for row; default all)\n' +
  'Options:\n' +
  '  --group G              the matrix group in an HDF5 file\n' +
  '  --export OUTDIR        write the decoded arrays there\n' +
  `${sharedHelp(SHARED).join('\n')}\n` +
  '  (deprecated: --max-bytes is --max-read-bytes)\n';

/** An error in how the command was called (exit code 2). */
export class BpcellsUsageError extends CliUsageError {}

// The input must be there and be a BPCells directory or an HDF5 file: its format, sniffed.
async function checkInput(input, options) {
  if (input === '-') throw new BpcellsUsageError('a BPCells matrix is a directory, an HDF5 file or a URL, not standard input');
  const { format } = await locateInput(input, ioOptionsOf(options)); // the sniff heeds --timeout, --max-read-bytes
  if (format === null) throw notAFormat(input);
  if (format !== 'bpcells' && format !== 'hdf5') throw new BpcellsUsageError(`${input} is ${format}, not a BPCells matrix: try numdecode inspect ${input}`);
  return format;
}

function openOptions(values, command) {
  aliasOption(values, 'max-bytes', 'max-read-bytes', command);
  const options = {};
  if (values.group !== undefined) options.group = values.group;
  return { ...options, ...ioOptionsFromFlags(values) };
}

const FILES_OF_INDEX = /^index(_data|_idx|_idx_offsets|_starts)?$/;
const FILES_OF_VAL = /^val(_data|_idx|_idx_offsets)?$/;

/**
 * The JSON summary of a matrix directory or HDF5 matrix group; for an HDF5 file without
 * options.group, the list of its matrix groups ({source, hdf5: true, groups}).
 */
export async function inspect(target, options = {}, format = undefined) {
  format ??= (await locateInput(target, ioOptionsOf(options))).format;
  if (options.group === undefined && format === 'hdf5') return { source: String(target), hdf5: true, groups: await bpcells.list(target, options) };
  const m = await bpcells.open(target, options);
  // The storage order printed is checked (over HTTP open may leave that to the first read).
  const [files] = await Promise.all([m.fileSizes(), m.checkedStorageOrder()]);
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

// --range on the storage axis: [a, b) (steps are not a BPCells read).
function storageRange(text, major) {
  const { start, stop, step } = oneAxisRange(text, major);
  if (step !== 1) throw new BpcellsUsageError(`--range ${text}: bpcells reads whole runs of positions (no step)`);
  return [start, Math.max(start, stop)];
}

/** Writes the decoded arrays of positions [a, b) to outDir; returns the shape.json object. */
export async function exportMatrix(target, outDir, rangeText, options = {}) {
  const m = await bpcells.open(target, options);
  const [a, b] = rangeText === undefined ? [0, m.major] : storageRange(rangeText, m.major);
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

/** `numdecode bpcells ...` */
export async function run(argv, out = process.stdout) {
  const { values, positionals } = parseCommand(argv, { shared: SHARED, own: OWN, aliases: ALIASES });
  if (values.help) {
    out.write(`Usage:\n${usage}`);
    return;
  }
  if (positionals.length !== 1) throw new BpcellsUsageError(`bpcells needs exactly one INPUT (a directory, HDF5 file or URL), got ${positionals.length}`);
  const options = openOptions(values, 'bpcells');
  if (outputFormat({ to: values.to ?? 'json' }, 'bpcells') !== 'json') throw new BpcellsUsageError('bpcells writes JSON (--to json); the arrays themselves: --export OUTDIR');
  const format = await checkInput(positionals[0], options);
  const write = (info) => writeOutput([JSON.stringify(info, null, 2) + '\n'], values.output, out);
  if (values.export === undefined) {
    if (values.range !== undefined) throw new BpcellsUsageError('--range needs --export OUTDIR');
    return write(await inspect(positionals[0], options, format));
  }
  return write(await exportMatrix(positionals[0], values.export, values.range, options));
}

/** `numdecode inspect INPUT` for a BPCells directory or HDF5 file (bin/ routes here by the sniff). */
export async function runInspect(argv, out = process.stdout) {
  const { values, positionals } = parseCommand(argv, { shared: ['format', 'output', 'max-read-bytes', 'timeout', 'concurrency', 'help'], own: { group: OWN.group }, aliases: ALIASES });
  if (positionals.length !== 1) throw new BpcellsUsageError(`inspect needs exactly one INPUT, got ${positionals.length}`);
  const options = openOptions(values, 'inspect');
  const format = await checkInput(positionals[0], options);
  await writeOutput([JSON.stringify(await inspect(positionals[0], options, format), null, 2) + '\n'], values.output, out);
}
