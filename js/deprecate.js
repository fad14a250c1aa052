// Old names kept working for a while (0.x), each warning once per process: the one way every
// module says "this name is deprecated, use that".
const warned = new Set();

/**
 * Warns once that `oldName` is deprecated in favour of `newName` (Node: process.emitWarning with
 * code NUMDECODE_DEPRECATED, so --no-deprecation silences it; elsewhere console.warn).
 */
export function deprecated(oldName, newName) {
  if (warned.has(oldName)) return;
  warned.add(oldName);
  const message = `numdecode: ${oldName} is deprecated; use ${newName}`;
  if (typeof globalThis.process?.emitWarning === 'function') {
    globalThis.process.emitWarning(message, { type: 'DeprecationWarning', code: 'NUMDECODE_DEPRECATED' });
  } else {
    console.warn(message);
  }
}

/**
 * `options` with a deprecated option name moved to its new one (warning once), e.g.
 * renamedOption(options, 'maxBytes', 'maxReadBytes', 'bpcells.open'). Both given: the new wins.
 */
export function renamedOption(options, oldKey, newKey, where) {
  if (options == null || options[oldKey] === undefined) return options;
  deprecated(`${where} option ${oldKey}`, newKey);
  const { [oldKey]: value, ...rest } = options;
  return rest[newKey] === undefined ? { ...rest, [newKey]: value } : rest;
}
