// The thread behind js/io/read-ahead.js: reads a list of local files, in order, into two shared
// slots in turn, while the thread that asked decodes the other slot. Node only (worker_threads).
// A job's shared state (js/io/read-ahead.js has the layout):
//   control[slot] 0: the slot is free to fill; n + 1: it holds the next n files
//   control[CANCEL] 1: stop (the caller has ended the read); control[FINISHED] 1: this job is over
//   meta[slot][2k], meta[slot][2k + 1]: where file k of the slot starts in it, and its length, or
//   MISSING (no such file) or YOURSELF (too big for a slot, or a failure: the caller reads it itself,
//   and so gets the real error)
const fs = process.getBuiltinModule('node:fs');
const { parentPort } = process.getBuiltinModule('node:worker_threads');

const CANCEL = 2;
const FINISHED = 3;
const MISSING = -1;
const YOURSELF = -2;
const NOT_THERE = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);
const WAIT_MS = 1000; // a wait's slice: cancel is checked at least this often

// One file into `data` at `at`: its length, MISSING, YOURSELF, or null when it does not fit in the
// room left (it starts the next slot).
function readOne(file, data, at) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    return NOT_THERE.has(err?.code) ? MISSING : YOURSELF;
  }
  try {
    const room = data.length - at;
    let done = 0;
    while (done < room) {
      const n = fs.readSync(fd, data, at + done, room - done, done);
      if (n === 0) return done;
      done += n;
    }
    if (fs.fstatSync(fd).size === done) return done;
    return at === 0 ? YOURSELF : null;
  } catch {
    return YOURSELF;
  } finally {
    fs.closeSync(fd);
  }
}

function run({ files, control, slots, metas }) {
  const ctl = new Int32Array(control);
  const data = slots.map((b) => new Uint8Array(b));
  const meta = metas.map((b) => new Int32Array(b));
  const perSlot = meta[0].length / 2;
  const cancelled = () => Atomics.load(ctl, CANCEL) !== 0;
  let next = 0;
  let slot = 0;
  try {
    while (next < files.length && !cancelled()) {
      while (Atomics.load(ctl, slot) !== 0) {
        if (cancelled()) return;
        Atomics.wait(ctl, slot, Atomics.load(ctl, slot), WAIT_MS);
      }
      let at = 0;
      let count = 0;
      while (next < files.length && count < perSlot && !cancelled()) {
        const length = readOne(files[next], data[slot], at);
        if (length === null) break;
        meta[slot][2 * count] = at;
        meta[slot][2 * count + 1] = length;
        if (length > 0) at += length;
        count++;
        next++;
      }
      Atomics.store(ctl, slot, count + 1);
      Atomics.notify(ctl, slot);
      slot ^= 1;
    }
  } finally {
    Atomics.store(ctl, FINISHED, 1);
    Atomics.notify(ctl, FINISHED);
  }
}

parentPort.on('message', run);
