// One stats shape for every source: what actually went over the wire (or out of the file system),
// counted where it happens (a read answered from the cache is not counted). Directories share one
// object across their files.
//   { requests, bytes, retries, roundTrips, files: { [name]: { requests, bytes } } }
// roundTrips counts waves: requests that started while no other was in flight. Requests sent
// together cost one round trip; a request that waits on another's answer costs one more, so this is
// what a slow link multiplies by its latency.

// Requests in flight per stats object (kept off the object, which callers compare and print).
const inFlight = new WeakMap();
// Stats objects that keep no per-file tally (files stays empty).
const untallied = new WeakSet();

/** perFile false: `files` stays empty (a store whose files are its chunks: thousands of names). */
export function newStats({ perFile = true } = {}) {
  const stats = { requests: 0, bytes: 0, retries: 0, roundTrips: 0, files: {} };
  if (!perFile) untallied.add(stats);
  return stats;
}

function fileEntry(stats, name) {
  if (untallied.has(stats)) return { requests: 0, bytes: 0 };
  return (stats.files[name] ??= { requests: 0, bytes: 0 });
}

/**
 * One request (or one read call of a non-HTTP source) made for file `name`, answered before the
 * caller goes on (a synchronous read): a round trip of its own unless others are in flight.
 */
export function countRequest(stats, name) {
  stats.requests += 1;
  if (!inFlight.get(stats)) stats.roundTrips = (stats.roundTrips ?? 0) + 1;
  fileEntry(stats, name).requests += 1;
}

/**
 * One request that stays in flight until the returned function is called (once its answer, body
 * included, has arrived or failed): requests started meanwhile share its round trip.
 */
export function startRequest(stats, name) {
  countRequest(stats, name);
  inFlight.set(stats, (inFlight.get(stats) ?? 0) + 1);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    inFlight.set(stats, inFlight.get(stats) - 1);
  };
}

/** Bytes received for file `name` (counted as they arrive, so maxReadBytes can stop a body early). */
export function countBytes(stats, name, n) {
  stats.bytes += n;
  fileEntry(stats, name).bytes += n;
}

export function countRetry(stats) {
  stats.retries += 1;
}

/** What crossed the wire between two snapshots of one stats object: { requests, bytes, roundTrips }. */
export function statsSince(stats, before = { requests: 0, bytes: 0, roundTrips: 0 }) {
  return {
    requests: stats.requests - before.requests,
    bytes: stats.bytes - before.bytes,
    roundTrips: (stats.roundTrips ?? 0) - (before.roundTrips ?? 0),
  };
}
