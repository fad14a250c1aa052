// The thread behind js/io/read-ahead.js: reads a list of local files, in order, into two shared
// slots in turn, while the thread that asked decodes the other slot. Node only (worker_threads).
// The shared state's layout is in js/io/read-ahead-protocol.js.
import { CANCEL, FINISHED, MISSING, WAIT_MS, YOURSELF } from './read-ahead-protocol.js';

const fs = process.getBuiltinModule('node:fs');
const { parentPort } = process.getBuiltinModule('node:worker_threads');

// (a directory is not "no file": the calling thread reads it and names it, js/zarr/local-store.js)
const NOT_THERE = new Set(['ENOENT', 'ENOTDIR']);

// One file into `data` at `at`: its length, MISSING, YOURSELF, or null when it does not fit in the
// room left (it starts the next slot).
function readOne(file, data, at) {
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0)); // a FIFO must not block open()
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
