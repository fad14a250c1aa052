// The shared state between js/io/read-ahead.js (the calling thread) and js/io/read-ahead-thread.js
// (the reader), in one place so that the two sides cannot disagree:
//   control[slot] (slot 0 or 1) 0: the slot is free to fill; n + 1: it holds the next n files
//   control[CANCEL] 1: stop (the caller has ended the read); control[FINISHED] 1: the job is over
//   meta[slot][2k], meta[slot][2k + 1]: where file k of the slot starts in it, and its length, or
//   MISSING (no such file) or YOURSELF (too big for a slot, or a failure: the caller reads it
//   itself, and so gets the real error)
export const CANCEL = 2;
export const FINISHED = 3;
export const MISSING = -1;
export const YOURSELF = -2;
/** A wait's slice (ms): either side checks for a cancel or a dead peer at least this often. */
export const WAIT_MS = 1000;
