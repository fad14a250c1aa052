#!/usr/bin/env node
// numdecode command line: a small dispatcher. Each format lives in js/cli/<format>.js and
// exports {name, summary, options, optionHelp, decode(bytes, values), inspect(bytes, values)};
// commands that are not decode/inspect (e.g. a directory format) register in COMMANDS.
import { readFile } from 'node:fs/promises';
import { bytesOf } from '../js/bytes.js';
import { locateInput, notAFormat, readInput } from '../js/cli/input.js';
import { npyPieces } from '../js/cli/npy.js';
import { csvText, writeOutput } from '../js/cli/output.js';
import { CliUsageError, GRAMMAR, INPUT_HELP, ioOptionsFromFlags, oneAxisRange, stepped, outputFormat, parseCommand, positiveInteger, sharedHelp } from '../js/cli/vocabulary.js';
import { deprecated } from '../js/deprecate.js';
import { init } from '../js/index.js';
import { halfToNumber } from '../js/number-text.js';

// --format NAME -> module with decodeValues/inspect of a single file's bytes.
const FORMATS = {
  pco: () => import('../js/cli/pco.js'),
  alp: () => import('../js/cli/alp.js'), // ALP pages: no signature, so only with --format alp
};
// Other top-level commands -> module with run(argv), usage and summary.
const COMMANDS = {
  encode: () => import('../js/cli/pco-encode.js'), // Pco files from raw, CSV or .npy values (issue 30)
  'encode-alp': () => import('../js/cli/alp.js'),
  bpcells: () => import('../js/cli/bpcells.js'),
  zarr: () => import('../js/cli/zarr.js'),
  parquet: () => import('../js/cli/parquet.js'),
};
// A sniffed (or --format) container -> the command that reads it.
const COMMAND_OF_FORMAT = { parquet: 'parquet', zarr: 'zarr', hdf5: 'bpcells', bpcells: 'bpcells' };

const UsageError = CliUsageError;

// Options of the commands decode hands a container to (parquet, zarr): parsed here too, so that
// INPUT is found before the sniff says which command reads it.
const CONTAINER_OPTIONS = {
  columns: { type: 'string' },
  array: { type: 'string' },
  hint: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  rows: { type: 'string' },
  slice: { type: 'string' },
  'max-bytes': { type: 'string' },
  workers: { type: 'string' },
};
// decode and inspect take the I/O options too: an INPUT may be a URL, or go to a command that reads
// over HTTP (parquet, zarr, bpcells), which gets the same argv.
const DECODE_SHARED = ['format', 'to', 'output', 'range', 'max-output-bytes', 'max-read-bytes', 'timeout', 'concurrency', 'help'];
const INSPECT_SHARED = ['format', 'output', 'max-read-bytes', 'timeout', 'concurrency', 'help'];

// One line per command: what `numdecode --help` lists after the shared options.
const COMMAND_LINES = [
  ['decode INPUT', 'the values of a file (Pco; --format alp --dtype f32|f64 for ALP pages; Parquet, Zarr and BPCells go to their commands)'],
  ['inspect INPUT', 'what a file, store or matrix holds, as JSON (a Zarr store: its listing, as text; --json for JSON)'],
  ['parquet INPUT [--columns a,b]', 'columns of a Parquet file; --range picks rows'],
  ['zarr INPUT [--array PATH]', 'a Zarr store: its listing, or with --array a slice (--range) of one array'],
  ['bpcells INPUT [--group G] [--export DIR]', 'a BPCells matrix (directory or HDF5): summary, or its arrays (--range: storage-axis positions)'],
  ['encode INPUT -o OUT.pco', 'a Pco file from raw, CSV or .npy values'],
  ['encode-alp INPUT --dtype f32|f64 -o OUT', 'an ALP page from raw values'],
];

function usage() {
  return (
    `Usage: ${GRAMMAR}\n` +
    `${INPUT_HELP} The input format is sniffed (--format forces it).\n` +
    'Shared options (the same names, defaults and range syntax in every command):\n' +
    sharedHelp().join('\n') +
    '\nCommands:\n' +
    COMMAND_LINES.map(([c, what]) => `  ${c}\n      ${what}\n`).join('') +
    '  numdecode --version\n' +
    'Exit codes: 0 ok, 1 bad input, 2 bad usage.\n'
  );
}

// The value of --format wherever it stands, so that the format's own options can be parsed
// (undefined: tell it from the input).
function findFormat(argv) {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--format') return argv[i + 1];
    if (argv[i].startsWith('--format=')) return argv[i].slice('--format='.length);
  }
  return undefined;
}

// ---- value output: raw bytes, CSV lines or JSON ----

// Value i as text: 64-bit integers as exact decimals, f16 from its bits, floats as JS prints them.
function textOf(dtype, values, i) {
  return dtype === 'f16' ? String(halfToNumber(values[i])) : String(values[i]);
}

// One value per line (the chunks share one dtype: checked before).
function csvLines(chunks) {
  const values = concatValues(chunks);
  const dtype = chunks[0]?.dtype;
  return csvText({ rowCount: values.length, columnCount: 1, cell: (i) => textOf(dtype, values, i) });
}

// JSON has no NaN, Infinity or 64-bit integers: those become strings.
function jsonValues(dtype, values) {
  const out = new Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = dtype === 'f16' ? halfToNumber(values[i]) : values[i];
    out[i] = typeof v === 'bigint' || !Number.isFinite(v) ? String(v) : v;
  }
  return out;
}

function jsonText(chunks) {
  const one = (c) => ({ dtype: c.dtype, count: c.values.length, values: jsonValues(c.dtype, c.values) });
  const dtypes = new Set(chunks.map((c) => c.dtype));
  return JSON.stringify(dtypes.size > 1 ? { chunks: chunks.map(one) } : { ...one({ dtype: chunks[0]?.dtype ?? null, values: concatValues(chunks) }) }) + '\n';
}

function concatValues(chunks) {
  if (chunks.length === 1) return chunks[0].values;
  const total = chunks.reduce((n, c) => n + c.values.length, 0);
  const out = new (chunks[0]?.values.constructor ?? Uint8Array)(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c.values, at);
    at += c.values.length;
  }
  return out;
}

function rawPieces(chunks) {
  return chunks.map(({ values }) => bytesOf(values));
}

async function loadFormat(name) {
  if (!Object.hasOwn(FORMATS, name)) {
    const known = [...Object.keys(FORMATS), ...Object.keys(COMMAND_OF_FORMAT)];
    throw new UsageError(`unknown format ${JSON.stringify(name)} (known: ${known.join(', ')})`);
  }
  return FORMATS[name]();
}

// Hands the whole command line to the command that reads `format`'s containers.
async function delegate(format, argv) {
  return (await COMMANDS[COMMAND_OF_FORMAT[format]]()).run(argv);
}

// The input's format: --format's, or sniffed ({format, bytes?}); unknown bytes are an error
// unless a format without a signature is named.
async function resolveInput(input, named, values) {
  if (named !== undefined) return { format: named };
  const located = await locateInput(input, ioOptionsFromFlags(values)); // the sniff heeds --timeout, --max-read-bytes
  if (located.format === null) throw notAFormat(input, ' (ALP pages carry no signature: --format alp --dtype f32|f64)');
  return located;
}

function commandHelp(command, format) {
  const shared = command === 'decode' ? DECODE_SHARED : INSPECT_SHARED;
  const extra =
    command === 'decode'
      ? ['  --chunk N              only chunk N (0, 1, ...) of the file', '  (Parquet and Zarr inputs take numdecode parquet / zarr options: --columns, --array, ...)']
      : ['  --group G              the matrix group of an HDF5 file (BPCells)', '  --json, --hint PATH    a Zarr store\'s listing as JSON; arrays to list where the store cannot be listed'];
  const own = format.optionHelp.length ? `Options of --format ${format.name}:\n${format.optionHelp.join('\n')}\n` : '';
  return (
    `Usage: numdecode ${command} INPUT [options]\n  ${COMMAND_LINES.find(([c]) => c.startsWith(command))[1]}\n` +
    `  ${INPUT_HELP}\nOptions:\n${[...sharedHelp(shared), ...extra].join('\n')}\n${own}`
  );
}

async function decode(argv) {
  const named = findFormat(argv);
  if (named !== undefined && Object.hasOwn(COMMAND_OF_FORMAT, named)) return delegate(named, argv);
  const format = await loadFormat(named ?? 'pco');
  const { values, positionals } = parseCommand(argv, { shared: DECODE_SHARED, own: { ...format.options, ...CONTAINER_OPTIONS, chunk: { type: 'string' } } });
  if (values.help) return void process.stdout.write(commandHelp('decode', format));
  if (positionals.length !== 1) throw new UsageError(`decode needs exactly one INPUT (a path, - or a URL), got ${positionals.length}`);
  const to = outputFormat(values, 'decode');
  let chunkIndex;
  if (values.chunk !== undefined) {
    if (!/^\d+$/.test(values.chunk)) throw new UsageError(`--chunk must be a chunk number (0, 1, ...), got ${JSON.stringify(values.chunk)}`);
    chunkIndex = Number(values.chunk);
  }
  const maxOutputBytes = positiveInteger(values, 'max-output-bytes');
  const input = positionals[0];
  const located = await resolveInput(input, named, values);
  if (located.format === 'hdf5' || located.format === 'bpcells') {
    throw new UsageError(`${input} is a BPCells matrix (${located.format === 'hdf5' ? 'HDF5' : 'directory'}): write its arrays with numdecode bpcells ${input} --export DIR`);
  }
  if (Object.hasOwn(COMMAND_OF_FORMAT, located.format)) {
    if (input === '-') throw new UsageError(`standard input holds a ${located.format} file: numdecode ${COMMAND_OF_FORMAT[located.format]} reads it from a path or URL`);
    return delegate(located.format, argv);
  }
  const misplaced = Object.keys(CONTAINER_OPTIONS).find((name) => values[name] !== undefined);
  if (misplaced !== undefined) throw new UsageError(`--${misplaced} is an option of numdecode parquet or zarr, and ${input} is ${format.name}`);
  const bytes = located.bytes ?? (await readInput(input, ioOptionsFromFlags(values)));
  await init();
  let chunks = format.decodeValues(bytes, values);
  if (chunkIndex !== undefined) {
    if (chunkIndex >= chunks.length) throw new UsageError(`--chunk ${chunkIndex}: the file has ${chunks.length} chunk(s)`);
    chunks = [chunks[chunkIndex]];
  }
  const dtypes = [...new Set(chunks.map((c) => c.dtype))];
  if (dtypes.length > 1 && (to !== 'json' || values.range !== undefined)) {
    throw new UsageError(`the file's chunks have different dtypes (${dtypes.join(', ')}): pick one with --chunk N, or use --to json`);
  }
  if (values.range !== undefined) {
    const all = concatValues(chunks);
    chunks = [{ dtype: dtypes[0], values: stepped(all, oneAxisRange(values.range, all.length)) }];
  }
  const count = chunks.reduce((n, c) => n + c.values.length, 0);
  const byteCount = chunks.reduce((n, c) => n + c.values.byteLength, 0);
  if (maxOutputBytes !== undefined && byteCount > maxOutputBytes) {
    // The input is larger than the limit allows, as in numdecode zarr: exit 1, not a usage error.
    throw new Error(`${count} values take ${byteCount} bytes, more than --max-output-bytes ${maxOutputBytes} (pick fewer with --range)`);
  }
  process.stderr.write(`numdecode: ${count} ${dtypes.join('+') || 'no'} values in ${chunks.length} chunk(s)\n`);
  let pieces;
  if (to === 'bin') pieces = rawPieces(chunks);
  else if (to === 'npy') pieces = npyPieces(dtypes[0] ?? 'u8', concatValues(chunks), [count]);
  else if (to === 'csv') pieces = csvLines(chunks);
  else pieces = [jsonText(chunks)];
  if (to === 'npy' && dtypes.length > 1) throw new UsageError('a .npy file holds one dtype: pick a chunk with --chunk N');
  await writeOutput(pieces, values.output);
}

// Options any inspect target takes, so that INPUT can be found before the target is known.
async function inspectSpecs() {
  const alp = await FORMATS.alp();
  return { ...alp.options, group: { type: 'string' }, hint: { type: 'string', multiple: true }, json: { type: 'boolean' } };
}

async function inspect(argv) {
  // The old --max-bytes is --max-read-bytes for every input, whichever command reads it (zarr's own
  // --max-bytes is its --max-output-bytes): renamed before parsing and before delegating.
  // (Options only: nothing after a `--`, where every argument is INPUT.)
  const end = argv.includes('--') ? argv.indexOf('--') : argv.length;
  const options = argv.slice(0, end);
  if (options.some((a) => a === '--max-bytes' || a.startsWith('--max-bytes='))) {
    deprecated('inspect --max-bytes', '--max-read-bytes');
    const renamed = options.map((a) => (a === '--max-bytes' ? '--max-read-bytes' : a.startsWith('--max-bytes=') ? `--max-read-bytes=${a.slice(12)}` : a));
    argv = [...renamed, ...argv.slice(end)];
  }
  const named = findFormat(argv);
  const { values, positionals } = parseCommand(argv, { shared: INSPECT_SHARED, own: await inspectSpecs() });
  if (values.help) return void process.stdout.write(commandHelp('inspect', await loadFormat(named !== undefined && Object.hasOwn(FORMATS, named) ? named : 'pco')));
  if (positionals.length !== 1) throw new UsageError(`inspect needs exactly one INPUT (a path, - or a URL), got ${positionals.length}`);
  const input = positionals[0];
  const located = await resolveInput(input, named, values);
  if (Object.hasOwn(COMMAND_OF_FORMAT, located.format)) {
    if (input === '-') throw new UsageError(`standard input holds a ${located.format} file: numdecode inspect reads it from a path or URL`);
    const cli = await COMMANDS[COMMAND_OF_FORMAT[located.format]]();
    return cli.runInspect(argv);
  }
  const format = await loadFormat(located.format);
  const bytes = located.bytes ?? (await readInput(input, ioOptionsFromFlags(values)));
  await init();
  // 64-bit integers are bigint in the API and decimal strings in JSON output.
  await writeOutput([JSON.stringify(format.inspect(bytes, values), (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2) + '\n'], values.output);
}

async function version() {
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`numdecode ${pkg.version}\n`);
}

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('no command given');
  if (command === '--help' || command === '-h' || command === 'help') return void process.stdout.write(usage());
  if (command === '--version') return version();
  if (command === 'decode') return decode(rest);
  if (command === 'inspect') return inspect(rest);
  if (Object.hasOwn(COMMANDS, command)) return (await COMMANDS[command]()).run(rest);
  throw new UsageError(`unknown command ${JSON.stringify(command)}`);
}

// One line per error: messages from the decoders say what is wrong and where.
function oneLine(message) {
  const line = String(message).replace(/\s*\n\s*/g, ' ').trim().replace(/^numdecode: /, '');
  return line || 'unknown error';
}

// Warnings (the deprecated names' one-time notes) as one plain line each, without Node's prefix and hint.
process.removeAllListeners('warning');
process.on('warning', (warning) => process.stderr.write(`${warning.message}\n`));

try {
  await main(process.argv.slice(2));
} catch (err) {
  if (err instanceof UsageError || err?.usage === true /* BPCells CLI usage errors */) {
    const usageText = err.commandUsage ?? `Usage: ${GRAMMAR}\n(numdecode --help: the commands and the shared options)\n`;
    process.stderr.write(`numdecode: ${oneLine(err.message)}\n${usageText}`);
    process.exitCode = 2;
  } else if (err?.code === 'EPIPE') {
    // Reader went away (e.g. `| head`): not an error of ours.
  } else {
    process.stderr.write(`numdecode: ${oneLine(err instanceof Error ? err.message : err)}\n`);
    process.exitCode = 1;
  }
}
