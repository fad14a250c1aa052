// numdecode encode: numbers to a standalone Pco file, from raw little-endian bytes, a CSV of one
// value per line, or a NumPy .npy file.
import { deprecated } from '../deprecate.js';
import { DTYPES, typedArrayFor } from '../dtypes.js';
import { encode, inspect } from '../pco.js';
import { ensureFormat } from '../wasm/load.js';
import { readInput } from './input.js';
import { parseNumberLines } from './number-lines.js';
import { isNpy, readNpy } from './npy.js';
import { writeOutput } from './output.js';
import { CliUsageError, parseCommand } from './vocabulary.js';

export const usage =
  'Usage: numdecode encode INPUT [--format bin|csv|npy] [--dtype D] [--level N] [--mode M] [--delta D]\n' +
  '                        [--chunk-size N] -o OUT.pco|- [--to pco]\n' +
  '  INPUT (a path, - for standard input, or an http(s) URL) holds raw little-endian values (--dtype\n' +
  '  needed; f16 as bits), one value per line (a .csv or .txt file, or --format csv; --dtype needed;\n' +
  "  a first line that is no number is a header), or a NumPy .npy file (its own dtype; values in the\n" +
  "  file's order). --format forces the input format (sniffed: .npy by its magic, .csv/.txt by name).\n" +
  '  (deprecated: --input X is --format X; --format pco is --to pco)\n' +
  `  --dtype ${DTYPES.join('|')}\n` +
  '  --level 0..12 (default 8)\n' +
  '  --mode auto (default) | classic | dict | intMult:BASE | floatMult:BASE | floatQuant:K\n' +
  '  --delta auto (default) | none | consecutive:ORDER | lookback | conv1:ORDER\n' +
  '  --chunk-size N: Pco chunks of at most N values (default 262144)\n';

const usageError = (message) => new CliUsageError(message, usage);

class OptionError extends Error {}

// 'intMult:7' -> { kind: 'intMult', base: 7 } (64-bit bases as bigint); 'classic' -> 'classic'.
function modeOption(text) {
  const [kind, param] = text.split(':');
  if (param === undefined) return kind;
  if (kind === 'intMult') {
    if (!/^\d+$/.test(param)) throw new OptionError(`--mode intMult:BASE needs an integer base, got ${JSON.stringify(param)}`);
    return { kind, base: BigInt(param) };
  }
  if (kind === 'floatMult') return { kind, base: Number(param) };
  if (kind === 'floatQuant') return { kind, k: Number(param) };
  throw new OptionError(`--mode ${JSON.stringify(text)}: only intMult, floatMult and floatQuant take a parameter`);
}

function deltaOption(text) {
  const [kind, param] = text.split(':');
  if (param === undefined) return kind === 'none' ? 'noOp' : kind;
  if (kind === 'consecutive' || kind === 'conv1') return { kind, order: Number(param) };
  throw new OptionError(`--delta ${JSON.stringify(text)}: only consecutive and conv1 take an order`);
}

function integerOption(name, text) {
  if (!/^\d+$/.test(text)) throw new OptionError(`--${name} must be a whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

// The values of the input as a typed array, and its dtype.
function valuesOf(bytes, input, dtype, source) {
  if (input === 'npy') {
    const npy = readNpy(bytes);
    if (dtype !== undefined && dtype !== npy.dtype) throw new OptionError(`--dtype ${dtype}, but ${source} holds ${npy.dtype} values`);
    if (npy.fortranOrder && npy.shape.length > 1) process.stderr.write(`numdecode: ${source} is in Fortran order: its values go in that order\n`);
    return { dtype: npy.dtype, values: npy.values };
  }
  if (dtype === undefined) throw new OptionError(`${input} input needs --dtype (one of ${DTYPES.join(', ')})`);
  if (input === 'csv') return { dtype, values: parseNumberLines(new TextDecoder().decode(bytes), dtype, source) };
  const Type = typedArrayFor(dtype);
  if (bytes.length % Type.BYTES_PER_ELEMENT !== 0) {
    throw new Error(`${source}: ${bytes.length} bytes is not a whole number of ${dtype} values`);
  }
  return { dtype, values: new Type(bytes.slice().buffer) }; // a copy: aligned for the typed array
}

// raw, csv or npy: as asked, else a .npy by its magic, a .csv/.txt by its name, raw otherwise.
function inputKind(asked, file, bytes) {
  if (asked !== undefined) {
    if (!['bin', 'raw', 'csv', 'npy'].includes(asked)) throw new OptionError(`--format must be bin, csv or npy, got ${JSON.stringify(asked)}`);
    return asked === 'bin' ? 'raw' : asked;
  }
  if (isNpy(bytes)) return 'npy';
  return /\.(csv|txt)$/i.test(file) ? 'csv' : 'raw';
}

const describeChoice = (c) => {
  const mode = c.mode.name + (c.mode.base !== undefined ? `(${c.mode.base})` : c.mode.k !== undefined ? `(${c.mode.k})` : '');
  const delta = c.delta.name + (c.delta.order !== undefined ? `(${c.delta.order})` : '');
  return `${mode} + ${delta}`;
};

export async function run(argv) {
  const parsed = parseCommand(argv, {
    shared: ['format', 'to', 'output', 'help'],
    own: { dtype: { type: 'string' }, level: { type: 'string' }, mode: { type: 'string' }, delta: { type: 'string' }, 'chunk-size': { type: 'string' } },
    aliases: { input: { type: 'string' } },
    usage,
  });
  const { values: o, positionals } = parsed;
  if (o.help) return void process.stdout.write(usage);
  // --format forces the input format (docs/vocabulary.md); it once named the output (pco), and
  // --input the input: both still work, warning once.
  if (o.format === 'pco' || o.format === 'alp') {
    deprecated(`encode --format ${o.format}`, `--to ${o.format}`);
    o.to ??= o.format;
    o.format = undefined;
  }
  if (o.input !== undefined) {
    deprecated('encode --input', '--format');
    o.format ??= o.input;
  }
  if ((o.to ?? 'pco') !== 'pco') throw usageError(`encode writes Pco only (--to pco); ALP pages: numdecode encode-alp`);
  if (positionals.length !== 1) throw usageError(`encode needs exactly one input (a file, or - for standard input), got ${positionals.length}`);
  if (o.output === undefined) throw usageError('encode needs -o OUT.pco (or -o - for standard output)');
  if (o.dtype !== undefined && !DTYPES.includes(o.dtype)) throw usageError(`--dtype must be one of ${DTYPES.join(', ')}, got ${JSON.stringify(o.dtype)}`);
  const file = positionals[0];
  const source = file === '-' ? 'standard input' : file;
  let options, input;
  const bytes = await readInput(file);
  try {
    input = valuesOf(bytes, inputKind(o.format, file, bytes), o.dtype, source);
    options = { dtype: input.dtype };
    if (o.level !== undefined) options.level = integerOption('level', o.level);
    if (o.mode !== undefined) options.mode = modeOption(o.mode);
    if (o.delta !== undefined) options.delta = deltaOption(o.delta);
    if (o['chunk-size'] !== undefined) options.chunkSize = integerOption('chunk-size', o['chunk-size']);
  } catch (err) {
    if (err instanceof OptionError) throw usageError(err.message);
    throw err;
  }
  let encoded;
  try {
    encoded = await encode(input.values, options);
  } catch (err) {
    // Options the encoder refused (a mode for the wrong dtype, a level out of range) are usage errors.
    if (err instanceof TypeError || err instanceof RangeError) throw usageError(err.message);
    throw err;
  }
  await ensureFormat('pco'); // inspect() reads the file with the decoder
  const chunks = inspect(encoded).chunks;
  const choices = [...new Set(chunks.map(describeChoice))].join(', ');
  process.stderr.write(
    `numdecode: ${input.values.length} ${input.dtype} values -> ${encoded.length} bytes in ${chunks.length} chunk(s)${choices ? ` (${choices})` : ''}\n`,
  );
  await writeOutput([encoded], o.output);
}
