// The one byte coercion: whatever holds bytes (a Uint8Array or Node Buffer, another
// ArrayBufferView, an ArrayBuffer or SharedArrayBuffer) as a Uint8Array over the same memory.

/** `value` as a Uint8Array over the same memory, without copying; null when it holds no bytes. */
export function bytesOf(value) {
  if (value instanceof Uint8Array) return value;
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && value instanceof SharedArrayBuffer)) {
    return new Uint8Array(value);
  }
  return null;
}

/**
 * options.maxOutputBytes, the one check every reader makes of it (docs/vocabulary.md): the limit,
 * or Infinity when it is not given (undefined or null; a reader with a default puts it in first);
 * anything but a non-negative number is a TypeError naming `what`.
 */
export function outputBytesLimit(what, value) {
  if (value === undefined || value === null) return Infinity;
  if (typeof value !== 'number' || !(value >= 0)) {
    throw new TypeError(`${what}: options.maxOutputBytes must be a non-negative number, got ${String(value)}`);
  }
  return value;
}

/** A short name of what a value is, for TypeError messages ("null", "Array", "string"). */
export function describeValue(value) {
  if (value === null) return 'null';
  if (typeof value === 'object') return value.constructor?.name ?? 'an object';
  return typeof value;
}

// A buffer moved away (postMessage's transfer) has no bytes left. Node 20 lacks .detached: there
// it is 0 bytes that no view can be made of. By tag, not instanceof: arrays of other realms count.
function isDetached(buffer) {
  if (buffer?.byteLength !== 0 || Object.prototype.toString.call(buffer) !== '[object ArrayBuffer]') return false;
  if ('detached' in buffer) return buffer.detached;
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

/** A TypeError naming `what` if its ArrayBuffer (or its own) was detached. */
export function requireAttached(what, value) {
  if (isDetached(ArrayBuffer.isView(value) ? value.buffer : value)) throw new TypeError(`${what}: its ArrayBuffer was detached (moved by postMessage or transfer()), so it holds no bytes`);
}

/** bytesOf(value), or a TypeError naming the argument (`what`) and what it got. */
export function requireBytes(what, value) {
  requireAttached(what, value);
  const bytes = bytesOf(value);
  if (bytes === null) {
    throw new TypeError(`${what} must be a Uint8Array, another ArrayBufferView or an ArrayBuffer, got ${describeValue(value)}`);
  }
  return bytes;
}
