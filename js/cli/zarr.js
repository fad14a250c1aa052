// The Zarr part of the CLI:
//   numdecode zarr STORE_URL_OR_DIR [--json]
//       the hierarchy: groups and arrays with shape, data type, chunks and codecs
//   numdecode zarr STORE --array PATH [--slice '0,:,10:20'] [--format bin|csv|json] [-o OUT]
//       one slice of an array (default: all of it) as raw little-endian bytes (default), CSV or JSON
// Reads through zarrita with numdecode's pcodec codec (js/zarr-explore/).
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { bytesOf } from '../bytes.js';
import { csvText, writeOutput } from './output.js';

export const name = 'zarr';
export const usage =
  '  numdecode zarr STORE_URL_OR_DIR [--json] [--hint PATH]...\n' +
  '      list a Zarr store (v2 or v3): groups and arrays with shape, data type, chunks, codecs\n' +
  "  numdecode zarr STORE --array PATH [--slice '0,:,10:20'] [--format bin|csv|json] [-o OUT] [--max-bytes N] [--workers N]\n" +
  '      write a slice of an array (default: all of it): bin = raw little-endian C-order values\n' +
  '      (float16 as bits), csv = rows of the last dimension, json = {shape, values: [...]} with\n' +
  '      64-bit integers, NaN and infinities as strings; --workers N decodes the chunks in N worker\n' +
  '      threads (default: this thread); progress goes to stderr when it is a terminal\n';

/** An error in how the command was called (exit code 2). */
export class ZarrUsageError extends Error {
  constructor(message) {
    super(message);
    this.usage = true;
  }
}

const OPTIONS = {
  array: { type: 'string' },
  slice: { type: 'string' },
  format: { type: 'string' },
  output: { type: 'string', short: 'o' },
  json: { type: 'boolean' },
  hint: { type: 'string', multiple: true },
  'max-bytes': { type: 'string' },
  workers: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

const METADATA_FILES = new Set(['zarr.json', '.zarray', '.zgroup']);
const MAX_WALK = 100000; // directory entries visited when listing a local store

// Every metadata key of a local store ("/t2m/zarr.json"); chunk directories are walked too,
// but only up to MAX_WALK entries.
async function metadataKeys(root) {
  const keys = [];
  let visited = 0;
  async function walk(dir, rel) {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (++visited > MAX_WALK) return;
      if (e.isFile() && METADATA_FILES.has(e.name)) keys.push(`${rel}/${e.name}`);
      // A chunk directory of a v3 array ("c") holds no metadata.
      else if (e.isDirectory() && !(e.name === 'c' && entries.some((f) => f.name === 'zarr.json'))) await walk(path.join(dir, e.name), `${rel}/${e.name}`);
    }
  }
  await walk(root, '');
  return keys;
}

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

async function open(target, hints, pool) {
  const { openZarr } = await loadExplorer();
  const isUrl = /^https?:\/\//i.test(target);
  if (!isUrl && !(await isDirectory(target))) throw new ZarrUsageError(`${target} is neither an http(s) URL nor a directory`);
  return openZarr(isUrl ? target : path.resolve(target), {
    name: target,
    hints,
    pool,
    listMetadataKeys: isUrl ? undefined : () => metadataKeys(path.resolve(target)),
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
    const shards = d.shardShape ? ` shards ${shapeText(d.shardShape)}` : '';
    lines.push(`${node.path}  ${d.dataType} ${shapeText(d.shape)} chunks ${shapeText(d.chunkShape)}${shards}${dims} fill ${JSON.stringify(d.fillValue)}`);
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
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new ZarrUsageError(err.message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out.write(`Usage:\n${usage}`);
    return;
  }
  if (positionals.length !== 1) throw new ZarrUsageError(`zarr needs exactly one STORE_URL_OR_DIR, got ${positionals.length}`);
  const format = values.format ?? 'bin';
  if (!['bin', 'csv', 'json'].includes(format)) throw new ZarrUsageError(`--format must be bin, csv or json, got ${JSON.stringify(format)}`);
  if (values.array === undefined) {
    for (const flag of ['slice', 'format', 'output']) {
      if (values[flag] !== undefined) throw new ZarrUsageError(`--${flag} needs --array PATH`);
    }
  }
  let maxBytes = 2 ** 31;
  if (values['max-bytes'] !== undefined) {
    maxBytes = Number(values['max-bytes']);
    if (!(Number.isSafeInteger(maxBytes) && maxBytes > 0)) throw new ZarrUsageError(`--max-bytes must be a positive integer, got ${values['max-bytes']}`);
  }
  let workers;
  if (values.workers !== undefined) {
    if (values.array === undefined) throw new ZarrUsageError('--workers needs --array PATH');
    workers = Number(values.workers);
    if (!(Number.isInteger(workers) && workers >= 1 && workers <= 256)) throw new ZarrUsageError(`--workers must be an integer from 1 to 256, got ${values.workers}`);
  }
  const pool = workers ? await (await import('../worker/index.js')).createWorkerPool({ size: workers, init: { formats: ['pco'] } }) : undefined;
  try {
    await listOrRead(values, format, maxBytes, await open(positionals[0], values.hint ?? [], pool), out);
  } finally {
    await pool?.terminate();
  }
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
    if (values.json) out.write(JSON.stringify({ store: store.name, zarr_format: store.zarrFormat, kind: store.rootKind, consolidated: store.consolidated, nodes: store.nodes }, null, 2) + '\n');
    else out.write(listingText(store));
    return;
  }
  const { array, description } = await store.openArray(values.array);
  const { parseSlice, sliceText } = await import('../zarr-explore/slice.js');
  let sel;
  try {
    sel = parseSlice(values.slice, array.shape);
  } catch (err) {
    if (err instanceof RangeError) throw new ZarrUsageError(err.message);
    throw err;
  }
  const bytesPer = { int8: 1, uint8: 1, int16: 2, uint16: 2, float16: 2, int32: 4, uint32: 4, float32: 4, int64: 8, uint64: 8, float64: 8, bool: 1 }[description.dataType] ?? 8;
  const slice = await store.read(values.array, sel, { maxValues: Math.floor(maxBytes / bytesPer), onProgress: progressLine() });
  const { sliceJson, valueFormatter } = await import('../zarr-explore/format.js');
  let pieces;
  if (format === 'bin') pieces = [bytesOf(slice.values)];
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
