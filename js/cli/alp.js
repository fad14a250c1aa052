// The ALP part of the CLI:
//   numdecode decode FILE --format alp --dtype f32|f64 [-o OUT]
//   numdecode inspect FILE --format alp --dtype f32|f64
//   numdecode encode-alp IN.bin --dtype f32|f64 -o OUT.alp [--layout draft|merged] [--log-vector-size N]
import { init, alp } from '../index.js';
import { readInput } from './input.js';
import { writeOutput } from './output.js';
import { CliUsageError, parseCommand } from './vocabulary.js';

export const name = 'alp';
export const summary = 'ALP pages (Parquet ALP encoding proposal) of f32 or f64 values';
export const options = { dtype: { type: 'string' } };
export const optionHelp = ['  --dtype f32|f64   value type of the page (required: ALP pages do not record it)'];

function dtypeOf(values) {
  const dtype = values.dtype;
  if (dtype !== 'f32' && dtype !== 'f64') {
    const err = new Error(`--format alp needs --dtype f32 or --dtype f64${dtype === undefined ? '' : `, got ${JSON.stringify(dtype)}`}`);
    err.usage = true; // a usage error: exit 2
    throw err;
  }
  return dtype;
}

/** The page's values: one chunk [{dtype, values}]. */
export function decodeValues(bytes, values) {
  const dtype = dtypeOf(values);
  return [{ dtype, values: alp.decode(bytes, dtype) }];
}

/** inspect() as plain JSON: f64 frames (bigint) become decimal strings. */
export function inspect(bytes, values) {
  const info = alp.inspect(bytes, dtypeOf(values));
  for (const v of info.vectors) {
    if (typeof v.frameOfReference === 'bigint') v.frameOfReference = v.frameOfReference.toString();
  }
  return info;
}

// ---- numdecode encode-alp ----

export const usage =
  'Usage: numdecode encode-alp IN.bin --dtype f32|f64 -o OUT.alp [--layout draft|merged] [--log-vector-size N]\n' +
  '  IN.bin holds raw little-endian f32 or f64 values; OUT.alp gets one ALP page\n' +
  '  (default layout draft, the spec draft with a version byte; default log vector size 10).\n';

const usageError = (message) => new CliUsageError(message, usage);

export async function run(argv) {
  const parsed = parseCommand(argv, {
    shared: ['output', 'help'],
    own: { dtype: { type: 'string' }, layout: { type: 'string' }, 'log-vector-size': { type: 'string' } },
    usage,
  });
  const { values, positionals } = parsed;
  if (values.help) return void process.stdout.write(usage);
  if (positionals.length !== 1) throw usageError(`encode-alp needs exactly one input file, got ${positionals.length}`);
  if (values.dtype !== 'f32' && values.dtype !== 'f64') throw usageError('encode-alp needs --dtype f32 or --dtype f64');
  if (values.output === undefined) throw usageError('encode-alp needs -o OUT.alp');
  const encodeOptions = {};
  if (values.layout !== undefined) {
    if (values.layout !== 'draft' && values.layout !== 'merged') throw usageError('--layout must be draft or merged');
    encodeOptions.layout = values.layout;
  }
  if (values['log-vector-size'] !== undefined) {
    const lvs = Number(values['log-vector-size']);
    if (!Number.isInteger(lvs) || lvs < 3 || lvs > 15) throw usageError('--log-vector-size must be an integer in [3, 15]');
    encodeOptions.logVectorSize = lvs;
  }

  const raw = await readInput(positionals[0]);
  const width = values.dtype === 'f32' ? 4 : 8;
  if (raw.byteLength % width !== 0) {
    throw new Error(`${positionals[0]}: ${raw.byteLength} bytes is not a whole number of ${values.dtype} values`);
  }
  // A fresh aligned copy (the bytes read may sit at any offset of a shared pool).
  const aligned = raw.slice();
  const input = values.dtype === 'f32' ? new Float32Array(aligned.buffer) : new Float64Array(aligned.buffer);
  await init();
  await writeOutput([alp.encode(input, encodeOptions)], values.output);
}
