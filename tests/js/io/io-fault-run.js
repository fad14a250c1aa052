// The random-slice run behind the fault tests, shared by Node (io-faults.test.js) and Chromium
// (io-faults-browser.html): `reads` random column slices of a BPCells matrix served by the
// fault server, each compared value by value with what BPCells wrote. No Node imports here.
// Bounded: a fixed number of reads and a time limit; the matrix is reopened every `reopenEvery`
// reads per worker so open() meets faults too.
import { rng } from '../helpers/seeded-random.js';

const CLEAR_CODES = new Set(['ERR_NETWORK', 'ERR_NOT_FOUND', 'ERR_CHANGED', 'ERR_ABORTED']);

/** A clear error: our class, a known code, the file it is about named in the message. */
export function isClearError(err) {
  if (!err || !['BpcellsError', 'IoError'].includes(err.name) || !CLEAR_CODES.has(err.code)) return false;
  if (typeof err.file !== 'string' || !err.message.includes(err.file)) return false;
  return err.name === 'IoError' || err.cause?.name === 'IoError';
}

function why(err) {
  const m = /HTTP \d{3}|timed out|truncated HTTP body|changed on the server|asked for bytes|request failed|download limit/.exec(err?.message ?? '');
  return `${err?.code ?? err?.name}: ${m ? m[0] : String(err?.message).slice(0, 80)}`;
}

function sameSlice(r, exp, j, k) {
  const p0 = exp.idxptr[j];
  const p1 = exp.idxptr[j + k];
  if (r.idxptr.length !== k + 1 || r.index.length !== p1 - p0 || r.val.length !== p1 - p0) return false;
  for (let i = 0; i <= k; i++) if (r.idxptr[i] !== exp.idxptr[j + i] - p0) return false;
  for (let i = 0; i < p1 - p0; i++) {
    if (r.index[i] !== exp.index[p0 + i] || r.val[i] !== exp.val[p0 + i]) return false;
  }
  return true;
}

/**
 * open: () => Promise<matrix>; expected: { idxptr: Float64Array, index: Uint32Array, val: Uint32Array }.
 * Returns the figures: reads, exact, failed (by why), wrong values, unclear errors, retries, requests.
 */
export async function runFaultReads({ open, expected, reads = 500, seed = 7, workers = 4, reopenEvery = 25, timeLimitMs = 90000, maxSpan = 4 }) {
  const random = rng(seed);
  const major = expected.idxptr.length - 1;
  const started = Date.now();
  const deadline = started + timeLimitMs;
  const fig = { reads: 0, exact: 0, failed: 0, wrongValues: 0, failures: {}, unclear: [], wrong: [], opens: 0, retries: 0, requests: 0, bytes: 0 };
  let next = 0;
  const account = (m) => {
    if (!m) return;
    fig.retries += m.stats.retries ?? 0;
    fig.requests += m.stats.requests;
    fig.bytes += m.stats.bytes;
  };
  const fail = (err) => {
    fig.failed += 1;
    const w = why(err);
    fig.failures[w] = (fig.failures[w] ?? 0) + 1;
    if (!isClearError(err) && fig.unclear.length < 10) fig.unclear.push(`${err?.name} ${err?.code}: ${err?.message}`);
  };
  async function worker() {
    let m = null;
    let sinceOpen = 0;
    while (next < reads && Date.now() < deadline) {
      next += 1;
      const j = Math.floor(random() * major);
      const k = Math.min(major - j, 1 + Math.floor(random() * maxSpan));
      fig.reads += 1;
      try {
        if (!m || sinceOpen >= reopenEvery) {
          account(m);
          m = null;
          fig.opens += 1;
          m = await open();
          sinceOpen = 0;
        }
        sinceOpen += 1;
        const r = await m.read(j, j + k);
        if (sameSlice(r, expected, j, k)) fig.exact += 1;
        else {
          fig.wrongValues += 1;
          if (fig.wrong.length < 10) fig.wrong.push([j, k]);
        }
      } catch (err) {
        fail(err);
      }
    }
    account(m);
  }
  await Promise.all(Array.from({ length: workers }, () => worker()));
  fig.elapsedMs = Date.now() - started;
  fig.timedOut = fig.reads < reads;
  return fig;
}

/** The figures as the lines the tests print (and the README quotes). */
export function formatFigures(label, fig, injected) {
  const faults = Object.entries(injected).filter(([, n]) => n > 0);
  const total = faults.reduce((s, [, n]) => s + n, 0);
  return [
    `${label}: ${fig.reads} random slice reads in ${(fig.elapsedMs / 1000).toFixed(1)} s, ${fig.opens} opens, ${fig.requests} requests (${fig.bytes} bytes)`,
    `  faults injected: ${total} (${faults.map(([k, n]) => `${k} ${n}`).join(', ')})`,
    `  retries: ${fig.retries}`,
    `  reads exact: ${fig.exact}`,
    `  reads failed: ${fig.failed}${fig.failed ? ` (${Object.entries(fig.failures).map(([w, n]) => `${n}x ${w}`).join('; ')})` : ''}`,
    `  wrong values: ${fig.wrongValues}`,
  ].join('\n');
}
