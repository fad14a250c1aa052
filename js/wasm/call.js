// THE way a format wrapper calls its module: the export looked up (binding), the inputs copied in
// (withInputs) and the module's errors mapped to the format's error class (asFormatError).
import { CODES, LOCATION_FIELDS, NumdecodeError } from '../errors.js';
import { withInputs } from './inputs.js';
import { getModule } from './load.js';

/** A function the format's module exports; throws a clear Error if this build lacks it. */
export function binding(format, name) {
  const fn = getModule(format)[name];
  if (typeof fn !== 'function') {
    throw new NumdecodeError(`numdecode: the loaded ${format} module has no ${name}(); dist/ is out of date (run npm run build)`, {
      code: CODES.UNSUPPORTED,
    });
  }
  return fn;
}

/**
 * The error to throw for `err` caught around a call into the module: errors the decoders raise
 * (plain Errors carrying `code`, set by src/bindings/binding_util.hpp, and where the module knows
 * it a location such as `file`) become ErrorClass with that code and location, the module's
 * location winning over the caller's `details`; our own errors and argument errors pass unchanged.
 */
export function asFormatError(err, ErrorClass, details = {}) {
  if (err instanceof NumdecodeError || err instanceof TypeError || err instanceof RangeError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const where = { ...details };
  for (const key of LOCATION_FIELDS) if (err?.[key] !== undefined) where[key] = err[key];
  // No `cause`: the module's Error holds nothing beyond the message, code and location kept here.
  return new ErrorClass(message, { ...where, code: err?.code });
}

/**
 * The caller of a format's module, the one way the format wrappers call into it:
 * `call(inputs, fn, details)` copies the Uint8Arrays `inputs` into the module's memory (those lying
 * in a wasmInput() buffer are passed where they are), runs fn(ptr0, len0, ptr1, len1, ...), frees
 * the copies, and throws the module's errors as ErrorClass with `details` (file, dataset, ...)
 * as fields (see asFormatError). `call([], fn)` for a call that takes no input bytes.
 * @param {'pco'|'alp'|'bpcells'} format
 * @param {typeof NumdecodeError} ErrorClass
 */
export function wasmCaller(format, ErrorClass) {
  return function call(inputs, fn, details) {
    try {
      return inputs.length === 0 ? fn() : withInputs(format, inputs, fn);
    } catch (err) {
      // A trap: the module is replaced (memory.js, fetched only then).
      if (err instanceof WebAssembly.RuntimeError) import('./memory.js').then((m) => m.replaceAfterTrap(format)).catch(() => {});
      throw asFormatError(err, ErrorClass, details);
    }
  };
}
