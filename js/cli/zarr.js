// The Zarr part of the CLI:
//   numdecode zarr INPUT [--json]
//       the hierarchy: groups and arrays with shape, data type, chunks and codecs
//   numdecode zarr INPUT --array PATH [--range '0,:,10:20'] [--to csv|json|npy|bin] [-o OUT]
//       one slice of an array (default: all of it)
// Lists with numdecode/zarr's list() and reads through zarrita with numdecode's pcodec codec
// (js/zarr-explore/explorer.js over js/zarr/list.js).
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { bytesOf } from '../bytes.js';
import { locateInput } from './input.js';
import { dtypeOfArray, npyPieces } from './npy.js';
import { csvText, writeOutput } from './output.js';
import { CliUsageError, aliasOption, ioOptionsFromFlags, legacyOutputFormat, outputFormat, parseCommand, parseRange, positiveInteger, sharedHelp } from './vocabulary.js';

export const name = 'zarr';
const SHARED = ['format', 'to', 'output', 'range', 'max-output-bytes', 'max-read-bytes', 'timeout', 'concurrency', 'workers', 'help'];
const OWN = { array: { type: 'string' }, json: { type: 'boolean' }, hint: { type: 'string', multiple: true } };
const ALIASES = { slice: { type: 'string' }, 'max-bytes': { type: 'string' } }; // deprecated: --range, --max-output-bytes

export const usage =
  '  numdecode zarr INPUT [--json] [--hint PATH]...\n' +
  '      list a Zarr store (v2 or v3, a directory or URL): groups and arrays with shape, data type, chunks, codecs\n' +
  "  numdecode zarr INPUT --array PATH [--range '0,:,10:20'] [--to csv|json|npy|bin] [-o OUT] [--workers N]\n" +
  '      a slice of an array (default: all of it): csv (default) = rows of the last dimension,\n' +
  '      json = {shape, values: [...]} with 64-bit integers, NaN and infinities as strings,\n' +
  '      npy = the slice with its shape (float16 as <f2), bin = raw little-endian C-order values\n' +
  '      (float16 as bits); progress goes to stderr when it is a terminal\n' +
  'Options:\n' +
  '  --array PATH           the array to read\n' +
  '  --json                 the listing as JSON\n' +
  '  --hint PATH            an array or group to list where the store cannot be listed (HTTP without consolidated metadata)\n' +
  `${sharedHelp(SHARED).join('\n')}\n` +
  '  (deprecated: --slice is --range; --max-bytes is --max-output-bytes; --format bin|csv|json is --to)\n';

/** An error in how the command was called (exit code 2). */
export class ZarrUsageError extends CliUsageError {}

async function isDirectory(target) {
  try {
    return (await stat(target)).isDirectory();
  } catch {
    return false;
  }
}

// zarrita is an optional dependency: imported on its own first, so that a failure here can only
// mean zarrita itself is missing (an error's code says that; its text is not read).
async function loadExplorer() {
  try {
    await import('zarrita');
  } catch (err) {
    if (err?.code === 'ERR_MODULE_NOT_FOUND') throw new Error('numdecode zarr needs the zarrita package: npm install zarrita', { cause: err });
    throw err;
  }
  return import('../zarr-explore/explorer.js');
}

async function open(target, hints, pool, io) {
  const { openZarr } = await loadExplorer();
  const isUrl = /^https?:\/\//i.test(target);
  const { format } = await locateInput(target, io); // not found: says so
  if (format !== null && format !== 'zarr') throw new ZarrUsageError(`${target} is ${format}, not a Zarr store: try numdecode inspect ${target}`);
  if (!isUrl && !(await isDirectory(target))) throw new ZarrUsageError(`${target} is not a directory (a Zarr store is a directory or a URL)`);
  return openZarr(isUrl ? target : path.resolve(target), {
    ...io, // a URL's requests: --timeout, --max-read-bytes, --concurrency
    name: target,
    hints,
    pool,
  });
}

const shapeText = (shape) => `[${(shape ?? []).join(', ')}]`;

function codecText(c) {
  const indent = c.depth ? '    '.repeat(c.depth) : '';
  const who = c.decoder ?? 'NOT DECODABLE here';
  return `${indent}${c.role === 'codec' ? '' : `${c.role} `}${c.name} (${who}) ${JSON.stringify(c.configuration)}`;
}

/** The hierarchy as text lines. */
export function listingText(store) {
  const lines = [];
  lines.push(`${store.name}: Zarr v${store.zarrFormat} ${store.rootKind}, ${store.consolidated ? 'consolidated metadata' : 'no consolidated metadata'}`);
  const undecodable = new Set();
  for (const node of store.nodes) {
    if (node.error) {
      lines.push(`${node.path}  ERROR: ${node.error}`);
      continue;
    }
    if (node.kind !== 'array') {
      lines.push(`${node.path}  (group)`);
      continue;
    }
    const d = node.description;
    const dims = d.dimensionNames ? ` dims (${d.dimensionNames.join(', ')})` : '';
    const shards = d.shards ? ` shards ${shapeText(d.shards)}` : '';
    lines.push(`${node.path}  ${d.dataType} ${shapeText(d.shape)} chunks ${shapeText(d.chunks)}${shards}${dims} fill ${JSON.stringify(d.fillValue)}`);
    for (const c of d.codecs) {
      lines.push(`    ${codecText(c)}`);
      if (c.decoder === null) undecodable.add(c.name);
    }
  }
  if (!store.consolidated && store.rootKind === 'group' && /^https?:/i.test(store.name)) {
    lines.push('(over HTTP a group without consolidated metadata cannot list its children: name arrays with --hint PATH or --array PATH)');
  }
  if (undecodable.size) lines.push(`codecs nothing here decodes: ${[...undecodable].join(', ')}`);
  return lines.join('\n') + '\n';
}

// CSV rows of the last dimension in C order (a 1-D slice one value per line, a single value one line).
function sliceCsv(values, shape, text) {
  const width = shape.length >= 2 ? shape[shape.length - 1] : 1;
  return csvText({ rowCount: width === 0 ? 0 : values.length / width, columnCount: width, cell: (row, col) => text(values[row * width + col]) });
}

/** `numdecode zarr ...` */
export async function run(argv, out = process.stdout) {
  const { values, positionals } = parseCommand(argv, { shared: SHARED, own: OWN, aliases: ALIASES });
  if (values.help) {
    out.write(`Usage:\n${usage}`);
    return;
  }
  if (positionals.length !== 1) throw new ZarrUsageError(`zarr needs exactly one INPUT (a store directory or URL), got ${positionals.length}`);
  if (positionals[0] === '-') throw new ZarrUsageError('a Zarr store is a directory or URL, not standard input');
  legacyOutputFormat(values, 'zarr', 'zarr');
  aliasOption(values, 'slice', 'range', 'zarr');
  aliasOption(values, 'max-bytes', 'max-output-bytes', 'zarr');
  const to = outputFormat(values, 'zarr');
  if (values.array === undefined) {
    for (const flag of ['range', 'to', 'output', 'workers']) {
      if (values[flag] !== undefined) throw new ZarrUsageError(`--${flag} needs --array PATH`);
    }
  }
  const maxBytes = positiveInteger(values, 'max-output-bytes') ?? 2 ** 31;
  const workers = values.workers === undefined ? undefined : Number(values.workers);
  if (workers !== undefined && !(Number.isInteger(workers) && workers >= 1 && workers <= 256)) throw new ZarrUsageError(`--workers must be an integer from 1 to 256, got ${values.workers}`);
  const pool = workers ? await (await import('../worker/index.js')).createWorkerPool({ size: workers, init: { formats: ['pco'] } }) : undefined;
  try {
    const io = ioOptionsFromFlags(values);
    await listOrRead(values, to, maxBytes, await open(positionals[0], values.hint ?? [], pool, io), out);
  } finally {
    await pool?.terminate();
  }
}

/** `numdecode inspect INPUT` for a Zarr store: its listing. */
export async function runInspect(argv, out = process.stdout) {
  return run(argv, out);
}

// Chunks read so far, on one rewritten line of stderr (a terminal only: a pipe or a test gets none).
function progressLine(stream = process.stderr) {
  if (!stream.isTTY) return undefined;
  let shown = 0;
  return ({ chunks, totalChunks, bytes }) => {
    const now = Date.now();
    if (chunks < totalChunks && now - shown < 200) return;
    shown = now;
    stream.write(`\rnumdecode zarr: ${chunks} of ${totalChunks} chunks, ${(bytes / 1e6).toFixed(1)} MB${chunks === totalChunks ? '\n' : ''}`);
  };
}

async function listOrRead(values, format, maxBytes, store, out) {
  if (values.array === undefined) {
    // list()'s names (numdecode/zarr), so that a script moves between the CLI and the library unchanged.
    if (values.json) out.write(JSON.stringify({ store: store.name, kind: store.rootKind, zarrFormat: store.zarrFormat, consolidated: store.consolidated, nodes: store.nodes }, null, 2) + '\n');
    else out.write(listingText(store));
    return;
  }
  const { array, description } = await store.openArray(values.array);
  const { sliceText } = await import('../zarr-explore/slice.js');
  const sel = parseRange(values.range, array.shape);
  const bytesPer = { int8: 1, uint8: 1, int16: 2, uint16: 2, float16: 2, int32: 4, uint32: 4, float32: 4, int64: 8, uint64: 8, float64: 8, bool: 1 }[description.dataType] ?? 8;
  const slice = await store.read(values.array, sel, { maxValues: Math.floor(maxBytes / bytesPer), onProgress: progressLine() });
  const { sliceJson, valueFormatter } = await import('../zarr-explore/format.js');
  let pieces;
  if (format === 'bin') pieces = [bytesOf(slice.values)];
  else if (format === 'npy') pieces = npyPieces(slice.float16Bits ? 'f16' : dtypeOfArray(slice.values), slice.values, slice.shape);
  else if (format === 'csv') pieces = sliceCsv(slice.values, slice.shape, valueFormatter(slice.dataType, slice.float16Bits));
  else {
    pieces = sliceJson(slice.values, {
      array: description.path,
      shape: slice.shape,
      dataType: slice.dataType,
      float16Bits: slice.float16Bits,
      slice: sliceText(sel, array.shape),
      fillValue: description.fillValue,
    });
  }
  await writeOutput(pieces, values.output, out);
}
