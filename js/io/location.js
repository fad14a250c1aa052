// The one test of what a location string names: an http(s) URL, or a local path (a plain path or a
// file: URL, Node only). Every opener (files, directories, bpcells.open) asks here.

/** True in Node (where local paths can be read). */
export const isNode = () => typeof globalThis.process === 'object' && typeof globalThis.process.versions?.node === 'string';

/**
 * True where Node's own fetch sends the requests: not a page, a worker or an Electron renderer
 * (which has Node's `process` beside a `document`), where the browser's network stack does.
 */
export const nodeSendsRequests = () =>
  isNode() && globalThis.document === undefined && typeof globalThis.importScripts !== 'function';

/** True for an http: or https: URL string. */
export const isHttpUrl = (s) => /^https?:\/\//i.test(s);

/**
 * The local path a string names (a file: URL decoded). TypeError for another URL scheme, and
 * outside Node, where there are no local files to read.
 */
export function localPath(s) {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s) && !/^file:/i.test(s)) {
    throw new TypeError(`unsupported URL scheme in ${JSON.stringify(s)} (http, https or a local path)`);
  }
  if (!isNode()) throw new TypeError('local paths need Node; in a browser pass an http(s) URL, a Blob/File or a buffer');
  return /^file:/i.test(s) ? decodeURIComponent(new URL(s).pathname) : s;
}
