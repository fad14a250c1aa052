// One stats shape for every source: what actually went over the wire (or out of the file system),
// counted where it happens. Directories share one object across their files.
//   { requests, bytes, retries, files: { [name]: { requests, bytes } } }

export function newStats() {
  return { requests: 0, bytes: 0, retries: 0, files: {} };
}

function fileEntry(stats, name) {
  return (stats.files[name] ??= { requests: 0, bytes: 0 });
}

/** One request (or one read call of a non-HTTP source) made for file `name`. */
export function countRequest(stats, name) {
  stats.requests += 1;
  fileEntry(stats, name).requests += 1;
}

/** Bytes received for file `name` (counted as they arrive, so maxReadBytes can stop a body early). */
export function countBytes(stats, name, n) {
  stats.bytes += n;
  fileEntry(stats, name).bytes += n;
}

export function countRetry(stats) {
  stats.retries += 1;
}
