// The Parquet part of the CLI:
//   numdecode parquet INPUT [--columns a,b] [--range a:b] [--to csv|json|npy|bin] [-o OUT]
//   numdecode inspect INPUT              (a file starting with the PAR1 magic: bin/ sniffs it)
import { bytesOf } from '../bytes.js';
import { formatF32 } from '../number-text.js';
import { open, inspect } from '../parquet.js';
import { locateInput, notAFormat } from './input.js';
import { npyPieces, dtypeOfArray } from './npy.js';
import { csvText, writeOutput } from './output.js';
import { CliUsageError, aliasOption, ioOptionsFromFlags, legacyOutputFormat, oneAxisRange, outputFormat, parseCommand, sharedHelp, stepped } from './vocabulary.js';

const SHARED = ['format', 'to', 'output', 'range', 'max-read-bytes', 'timeout', 'concurrency', 'help'];
const OWN = { columns: { type: 'string' } };
const ALIASES = { rows: { type: 'string' } }; // deprecated: --range

export const usage =
  'Usage: numdecode parquet INPUT [--columns a,b] [--range a:b] [--to csv|json|npy|bin] [-o OUT]\n' +
  '  Reads columns of a Parquet file (ALP-encoded FLOAT / DOUBLE columns included); --range picks rows.\n' +
  '  csv (default): a header line, then one line per row, empty fields at nulls, floats in their\n' +
  '    shortest round-trip form; json: {numRows, columns: {name: [values, null at nulls]}};\n' +
  '  npy: the columns (one numeric type) as a rows x columns array; bin: the FLOAT / DOUBLE columns\n' +
  '    as raw little-endian values, one column after the other (0 at nulls).\n' +
  '  numdecode inspect INPUT   prints the schema, row groups and pages as JSON.\n' +
  'Options:\n' +
  '  --columns a,b          only these columns\n' +
  `${sharedHelp(SHARED).join('\n')}\n` +
  '  (deprecated: --rows a:b is --range a:b; --format csv|json|bin is --to)\n';

const usageError = (message) => new CliUsageError(message);

function cellText(column, i) {
  if (column.valid && !column.valid[i]) return '';
  const v = column.values[i];
  if (column.type === 'FLOAT') return formatF32(v); // the shortest decimal that reads back as the same f32
  if (column.type === 'DOUBLE') return Object.is(v, -0) ? '-0' : String(v);
  if (v === null || v === undefined) return '';
  if (typeof v === 'object' && !(v instanceof Date)) return JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? x.toString() : x));
  return v instanceof Date ? v.toISOString() : String(v);
}

// A header line of the column names, then one line per row (fields quoted by csvText where needed).
function csvLines(result) {
  const names = Object.keys(result.columns);
  const cols = names.map((n) => result.columns[n]);
  return csvText({ header: names, rowCount: result.numRows, columnCount: cols.length, cell: (row, col) => cellText(cols[col], row) });
}

function jsonText(result) {
  const columns = {};
  for (const [name, c] of Object.entries(result.columns)) {
    const out = new Array(result.numRows);
    for (let i = 0; i < result.numRows; i++) {
      const v = c.valid && !c.valid[i] ? null : c.values[i];
      // JSON has no NaN / Infinity / bigint: those become strings
      out[i] = typeof v === 'number' && !Number.isFinite(v) ? String(v) : typeof v === 'bigint' ? v.toString() : v;
    }
    columns[name] = out;
  }
  return `${JSON.stringify({ numRows: result.numRows, columns })}\n`;
}

function binChunks(result) {
  const out = [];
  for (const [name, c] of Object.entries(result.columns)) {
    if (c.type !== 'FLOAT' && c.type !== 'DOUBLE') {
      throw usageError(`--to bin writes FLOAT / DOUBLE columns only; ${name} is ${c.type} (pick columns with --columns)`);
    }
    out.push(bytesOf(c.values));
  }
  return out;
}

// A .npy of the columns: rows x columns, column after column (Fortran order), one numeric type.
function npyOf(result) {
  const columns = Object.entries(result.columns);
  const dtypes = new Set(columns.map(([, c]) => (ArrayBuffer.isView(c.values) ? dtypeOfArray(c.values) : undefined)));
  const [dtype] = dtypes;
  if (dtypes.size !== 1 || dtype === undefined) {
    throw usageError(`--to npy writes numeric columns of one type; these are ${columns.map(([n, c]) => `${n} ${c.type}`).join(', ')} (pick columns with --columns)`);
  }
  const Type = columns[0][1].values.constructor;
  const all = new Type(result.numRows * columns.length);
  columns.forEach(([, c], i) => all.set(c.values, i * result.numRows));
  return npyPieces(dtype, all, columns.length === 1 ? [result.numRows] : [result.numRows, columns.length], { fortranOrder: true });
}

// The rows start, start + step, ... below stop of the result (all columns alike).
function pickRows(result, { start, stop, step }) {
  const end = Math.min(stop, result.numRows);
  if (start === 0 && step === 1 && end === result.numRows) return result;
  const rows = { start, stop: end, step };
  const columns = Object.fromEntries(
    Object.entries(result.columns).map(([n, c]) => [n, { ...c, values: stepped(c.values, rows), valid: c.valid && stepped(c.valid, rows) }]),
  );
  return { ...result, numRows: Math.max(0, Math.ceil((end - start) / step)), columns };
}

// The file must be there and be Parquet (a URL's name is not enough).
async function checkInput(input, io) {
  if (input === '-') throw usageError('parquet reads a path or URL (standard input cannot be read from its end)');
  const { format } = await locateInput(input, io);
  if (format === null) throw notAFormat(input);
  if (format !== 'parquet') throw usageError(`${input} is ${format}, not Parquet: try numdecode inspect ${input}`);
}

export async function run(argv) {
  const { values, positionals } = parseCommand(argv, { shared: SHARED, own: OWN, aliases: ALIASES });
  if (values.help) return void process.stdout.write(usage);
  if (positionals.length !== 1) throw usageError(`parquet needs exactly one INPUT (a path or URL), got ${positionals.length}`);
  legacyOutputFormat(values, 'parquet', 'parquet');
  aliasOption(values, 'rows', 'range', 'parquet');
  const to = outputFormat(values, 'parquet');
  const input = positionals[0];
  const options = ioOptionsFromFlags(values);
  await checkInput(input, options);
  // The footer first (the row count resolves --range, negative indices included), then only the
  // selected rows' pages.
  const file = await open(input, options);
  let result;
  try {
    const rows = values.range === undefined ? { start: 0, stop: file.numRows, step: 1 } : oneAxisRange(values.range, file.numRows);
    const read = { rowStart: rows.start, rowEnd: Math.max(rows.start, rows.stop) };
    if (values.columns !== undefined) read.columns = values.columns.split(',').filter(Boolean);
    result = pickRows(await file.read(read), { start: 0, stop: Infinity, step: rows.step });
  } finally {
    file.close();
  }
  if (to === 'bin') return writeOutput(binChunks(result), values.output);
  if (to === 'npy') return writeOutput(npyOf(result), values.output);
  if (to === 'json') return writeOutput([jsonText(result)], values.output);
  return writeOutput(csvLines(result), values.output);
}

/** numdecode inspect INPUT (a Parquet file): the JSON of inspect() (bigints as strings). */
export async function runInspect(argv) {
  const { values, positionals } = parseCommand(argv, { shared: ['format', 'output', 'max-read-bytes', 'timeout', 'concurrency', 'help'] });
  if (positionals.length !== 1) throw usageError(`inspect needs exactly one INPUT, got ${positionals.length}`);
  const info = await inspect(positionals[0], ioOptionsFromFlags(values));
  await writeOutput([`${JSON.stringify(info, (k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`], values.output);
}
