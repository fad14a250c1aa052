// The words every command shares (docs/vocabulary.md, "The command line"): the shared option
// names and their help, the output formats and their default, the one range syntax, and the old
// names that still work as deprecated aliases. Commands pick the shared options they use from here.
import { parseArgs } from 'node:util';
import { deprecated } from '../deprecate.js';
import { parseSlice } from '../zarr-explore/slice.js';

/**
 * An error in how the command was called (exit code 2, followed by the usage: the command's own
 * `commandUsage` text when given, else the shared grammar).
 */
export class CliUsageError extends Error {
  constructor(message, commandUsage) {
    super(message);
    this.usage = true;
    if (commandUsage !== undefined) this.commandUsage = commandUsage;
  }
}

/** What --to may name, everywhere. */
export const OUTPUT_FORMATS = Object.freeze(['csv', 'json', 'npy', 'bin']);

/** The shared options (node:util parseArgs specs) with one help line each, in the order help shows them. */
export const SHARED_OPTIONS = Object.freeze({
  format: { spec: { type: 'string' }, help: '--format F             force the input format (pco, alp, parquet, hdf5, zarr, bpcells); sniffed otherwise' },
  to: { spec: { type: 'string' }, help: "--to csv|json|npy|bin  the output format (default: from -o's extension .csv .json .npy .bin, else csv)" },
  output: { spec: { type: 'string', short: 'o' }, help: '-o, --output OUT       write to the file OUT (default, and -: standard output)' },
  range: { spec: { type: 'string' }, help: '--range R              a:b on one axis, NumPy\'s 0,:,10:20 on several (half-open, sides may be empty, a:b:s steps)' },
  'max-output-bytes': { spec: { type: 'string' }, help: '--max-output-bytes N   refuse to produce more than N bytes of values' },
  'max-read-bytes': { spec: { type: 'string' }, help: '--max-read-bytes N     refuse to read (download) more than N bytes' },
  timeout: { spec: { type: 'string' }, help: '--timeout MS           retry a request that sends nothing for MS milliseconds' },
  concurrency: { spec: { type: 'string' }, help: '--concurrency N        requests in flight to a server at once (default 64)' },
  workers: { spec: { type: 'string' }, help: '--workers N            decode in N worker threads' },
  help: { spec: { type: 'boolean', short: 'h' }, help: '-h, --help             the help (numdecode COMMAND --help: that command\'s own options)' },
});

/** The grammar line every command follows. */
export const GRAMMAR = 'numdecode <command> INPUT [--format F] [--to csv|json|npy|bin] [-o OUT] [--range R] [...]';
export const INPUT_HELP = 'INPUT is a path, - (standard input) or an http(s) URL.';

/** Help lines of the shared options `names` (indented), e.g. for a command's --help. */
export function sharedHelp(names = Object.keys(SHARED_OPTIONS)) {
  return names.map((n) => `  ${SHARED_OPTIONS[n].help}`);
}

/**
 * argv parsed with the shared options `shared` plus the command's `own` specs (and its deprecated
 * `aliases`, specs too): {values, positionals}; a parse failure is a CliUsageError (followed by
 * `usage`, the command's own help, when given).
 */
export function parseCommand(argv, { shared, own = {}, aliases = {}, usage }) {
  const options = { ...own, ...aliases };
  for (const name of shared) options[name] = SHARED_OPTIONS[name].spec;
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new CliUsageError(err.message, usage);
  }
}

/** Moves the deprecated option `old` to `now` in parsed values, warning once (the new name wins when both are given). */
export function aliasOption(values, old, now, command) {
  if (values[old] === undefined) return;
  deprecated(`${command} --${old}`, `--${now}`);
  if (values[now] === undefined) values[now] = values[old];
  delete values[old];
}

/**
 * Where --format used to name the OUTPUT (parquet, zarr): an output format there becomes --to,
 * warning once; any other value is the input format forced, which must be `inputFormat`.
 */
export function legacyOutputFormat(values, command, inputFormat) {
  const given = values.format;
  if (given === undefined) return;
  if (['csv', 'json', 'bin'].includes(given)) {
    deprecated(`${command} --format ${given}`, `--to ${given}`);
    if (values.to === undefined) values.to = given;
    delete values.format;
  } else if (given !== inputFormat) {
    throw new CliUsageError(`numdecode ${command} reads ${inputFormat}: --format ${JSON.stringify(given)} does not fit (--to names the output format)`);
  }
}

/** --to resolved: 'csv' | 'json' | 'npy' | 'bin', by default from -o's extension, else csv (--to raw: bin, deprecated). */
export function outputFormat(values, command) {
  let to = values.to;
  if (to === 'raw') {
    deprecated(`${command} --to raw`, '--to bin');
    to = 'bin';
  }
  if (to === undefined && values.output !== undefined && values.output !== '-') {
    const extension = /\.([^./\\]+)$/.exec(values.output)?.[1].toLowerCase();
    if (OUTPUT_FORMATS.includes(extension)) to = extension;
  }
  to ??= 'csv';
  if (!OUTPUT_FORMATS.includes(to)) throw new CliUsageError(`--to must be ${OUTPUT_FORMATS.join(', ')}, got ${JSON.stringify(to)}`);
  return to;
}

/**
 * --range against a shape: one {index} or {start, stop, step} per dimension (NumPy's rules:
 * negative counts from the end, missing trailing dimensions mean ":").
 */
export function parseRange(text, shape) {
  try {
    return parseSlice(text, shape);
  } catch (err) {
    if (err instanceof RangeError) throw new CliUsageError(`--range: ${err.message}`);
    throw err;
  }
}

/** --range on one axis of `length`: {start, stop, step} (a single index i is i:i+1). */
export function oneAxisRange(text, length) {
  const [axis] = parseRange(text, [length]);
  return axis.index === undefined ? axis : { start: axis.index, stop: axis.index + 1, step: 1 };
}

/** The value of a positive integer option, or undefined when it is not given. */
export function positiveInteger(values, name) {
  const text = values[name];
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!(Number.isSafeInteger(n) && n > 0)) throw new CliUsageError(`--${name} must be a positive integer, got ${JSON.stringify(text)}`);
  return n;
}

/** --max-read-bytes, --timeout and --concurrency (those given) as the I/O layer's options, for every request a command makes. */
export function ioOptionsFromFlags(values) {
  const options = {};
  const maxReadBytes = positiveInteger(values, 'max-read-bytes');
  if (maxReadBytes !== undefined) options.maxReadBytes = maxReadBytes;
  const timeout = positiveInteger(values, 'timeout');
  if (timeout !== undefined) options.timeout = timeout;
  const concurrency = positiveInteger(values, 'concurrency');
  if (concurrency !== undefined) options.concurrency = concurrency;
  return options;
}

/** Every step-th item of `values` (an array or typed array) from `start` up to `stop`. */
export function stepped(values, { start, stop, step }) {
  if (step === 1) return values.slice(start, stop);
  const out = new values.constructor(Math.max(0, Math.ceil((stop - start) / step)));
  for (let i = start, j = 0; i < stop; i += step, j++) out[j] = values[i];
  return out;
}
