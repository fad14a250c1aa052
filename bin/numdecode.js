#!/usr/bin/env node
// numdecode command line: a small dispatcher. Each format lives in js/cli/<format>.js and
// exports {name, summary, options, optionHelp, decode(bytes, values), inspect(bytes, values)};
// commands that are not decode/inspect (e.g. a directory format) register in COMMANDS.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { bytesOf } from '../js/bytes.js';
import { readInput, sniffPath } from '../js/cli/input.js';
import { csvText, writeOutput } from '../js/cli/output.js';
import { init } from '../js/index.js';
import { halfToNumber } from '../js/number-text.js';
import { sniffBytes } from '../js/sniff.js';

// --format NAME -> module with decode/inspect.
const FORMATS = {
  pco: () => import('../js/cli/pco.js'),
  alp: () => import('../js/cli/alp.js'), // ALP (added by the ALP branch)
};
// Other top-level commands -> module with run(argv) and usage.
const COMMANDS = {
  encode: () => import('../js/cli/pco-encode.js'), // Pco files from raw, CSV or .npy values (issue 30)
  'encode-alp': () => import('../js/cli/alp.js'), // ALP (added by the ALP branch)
  bpcells: () => import('../js/cli/bpcells.js'), // BPCells (bpcells branch)
  zarr: () => import('../js/cli/zarr.js'), // Zarr stores through zarrita (issue 17)
  parquet: () => import('../js/cli/parquet.js'), // Parquet files with ALP columns (issue 15)
};

const DEFAULT_FORMAT = 'pco';

class UsageError extends Error {}

function usage() {
  const formats = Object.keys(FORMATS).join('|');
  const extra = Object.keys(COMMANDS).map((c) => `  numdecode ${c} ...            (numdecode ${c} --help)\n`).join('');
  return (
    'Usage:\n' +
    `  numdecode decode [--format ${formats}] [format options] [--to raw|csv|json] [--chunk N] FILE|- [-o OUT]\n` +
    '      write the decoded values to OUT or stdout: raw little-endian bytes (f16 as bits, the default),\n' +
    '      csv (one value per line) or json ({dtype, count, values}); FILE - reads standard input.\n' +
    '      The dtype and count go to stderr. Chunks of different dtypes need --chunk N (or --to json).\n' +
    `  numdecode inspect [--format ${formats}] [format options] FILE|-\n` +
    '      print what the file contains as JSON (64-bit integers as decimal strings)\n' +
    extra +
    '  numdecode --help | --version\n' +
    'The format is told by the file\'s first bytes (pco! for Pco; Parquet, HDF5 and Zarr have their\n' +
    `own commands); ALP pages carry no signature: --format alp --dtype f32|f64. Default: ${DEFAULT_FORMAT}.\n` +
    'Exit codes: 0 ok, 1 bad input, 2 bad usage.\n'
  );
}

// The value of --format wherever it stands, so that the format's own options can be parsed
// (undefined: tell it from the file).
function findFormat(argv) {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--format') return argv[i + 1];
    if (argv[i].startsWith('--format=')) return argv[i].slice('--format='.length);
  }
  return undefined;
}

// The format of a file from its first bytes; containers are pointed to their own commands.
function detectFormat(bytes) {
  const format = sniffBytes(bytes);
  if (format === 'parquet') throw new UsageError('this is a Parquet file: read it with numdecode parquet FILE (or numdecode inspect FILE)');
  if (format === 'hdf5') throw new UsageError('this is an HDF5 file: read a BPCells matrix in it with numdecode bpcells FILE (or numdecode inspect FILE)');
  return DEFAULT_FORMAT; // Pco, or no signature: Pco's reader says what is wrong with it
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
    throw new UsageError(`unknown format ${JSON.stringify(name)} (known: ${Object.keys(FORMATS).join(', ')})`);
  }
  return FORMATS[name]();
}

function parse(argv, formatOptions, withOutput) {
  const spec = { format: { type: 'string' }, help: { type: 'boolean', short: 'h' }, ...formatOptions };
  if (withOutput) spec.output = { type: 'string', short: 'o' };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: spec, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(err.message);
  }
  return parsed;
}

const DECODE_OPTIONS = { to: { type: 'string' }, chunk: { type: 'string' } };

async function decodeOrInspect(command, argv) {
  const named = findFormat(argv);
  const format = await loadFormat(named ?? DEFAULT_FORMAT);
  const { values, positionals } = parse(argv, command === 'decode' ? { ...format.options, ...DECODE_OPTIONS } : format.options, command === 'decode');
  if (values.help) {
    process.stdout.write(usage() + (format.optionHelp.length ? `Options for ${format.name}:\n${format.optionHelp.join('\n')}\n` : ''));
    return;
  }
  if (positionals.length !== 1) throw new UsageError(`${command} needs exactly one FILE (or - for standard input), got ${positionals.length}`);
  const to = values.to ?? 'raw';
  if (!['raw', 'csv', 'json'].includes(to)) throw new UsageError(`--to must be raw, csv or json, got ${JSON.stringify(to)}`);
  let chunkIndex;
  if (values.chunk !== undefined) {
    if (!/^\d+$/.test(values.chunk)) throw new UsageError(`--chunk must be a chunk number (0, 1, ...), got ${JSON.stringify(values.chunk)}`);
    chunkIndex = Number(values.chunk);
  }
  const bytes = await readInput(positionals[0]);
  const fmt = named === undefined ? await loadFormat(detectFormat(bytes)) : format;
  if (fmt !== format && Object.keys(fmt.options).some((k) => values[k] !== undefined)) {
    throw new UsageError(`options of --format ${format.name} given for a ${fmt.name} file`);
  }
  await init();
  if (command === 'inspect') {
    // 64-bit integers are bigint in the API and decimal strings in JSON output.
    process.stdout.write(JSON.stringify(fmt.inspect(bytes, values), (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2) + '\n');
    return;
  }
  let chunks = fmt.decodeValues(bytes, values);
  if (chunkIndex !== undefined) {
    if (chunkIndex >= chunks.length) throw new UsageError(`--chunk ${chunkIndex}: the file has ${chunks.length} chunk(s)`);
    chunks = [chunks[chunkIndex]];
  }
  const dtypes = [...new Set(chunks.map((c) => c.dtype))];
  if (dtypes.length > 1 && to !== 'json') {
    throw new UsageError(`the file's chunks have different dtypes (${dtypes.join(', ')}): pick one with --chunk N, or use --to json`);
  }
  const count = chunks.reduce((n, c) => n + c.values.length, 0);
  process.stderr.write(`numdecode: ${count} ${dtypes.join('+') || 'no'} values in ${chunks.length} chunk(s)\n`);
  const pieces = to === 'raw' ? rawPieces(chunks) : to === 'csv' ? csvLines(chunks) : [jsonText(chunks)];
  await writeOutput(pieces, values.output);
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
  // BPCells (bpcells branch): `inspect DIR_OR_URL` takes a matrix directory or URL, not a file.
  if (command === 'inspect') {
    // Parquet (issue 15): a file starting with PAR1, or a .parquet URL.
    const parquetCli = await COMMANDS.parquet();
    if (await parquetCli.isTarget(rest)) return parquetCli.runInspect(rest);
    if (rest.some((arg) => sniffPath(arg) === 'zarr')) throw new UsageError('this is a Zarr store: list it with numdecode zarr DIR');
    const bpcellsCli = await COMMANDS.bpcells();
    if (rest.some((arg) => bpcellsCli.isTarget(arg))) return bpcellsCli.runInspect(rest);
  }
  if (command === 'decode' || command === 'inspect') return decodeOrInspect(command, rest);
  if (Object.hasOwn(COMMANDS, command)) return (await COMMANDS[command]()).run(rest);
  throw new UsageError(`unknown command ${JSON.stringify(command)}`);
}

// One line per error: messages from the decoders say what is wrong and where.
function oneLine(message) {
  const line = String(message).replace(/\s*\n\s*/g, ' ').trim().replace(/^numdecode: /, '');
  return line || 'unknown error';
}

try {
  await main(process.argv.slice(2));
} catch (err) {
  if (err instanceof UsageError || err?.usage === true /* BPCells CLI usage errors */) {
    process.stderr.write(`numdecode: ${oneLine(err.message)}\n${usage()}`);
    process.exitCode = 2;
  } else if (err?.code === 'EPIPE') {
    // Reader went away (e.g. `| head`): not an error of ours.
  } else {
    process.stderr.write(`numdecode: ${oneLine(err instanceof Error ? err.message : err)}\n`);
    process.exitCode = 1;
  }
}
