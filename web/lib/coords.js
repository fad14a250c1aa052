// Coordinates and units as climate and ocean data state them (the CF conventions that xarray
// writes): a dimension named like a 1-D array of its length takes that array's values as its
// coordinate; `units` names what the numbers measure, and "<unit> since <date>" makes them times.
// Used to label axes, colour bars and readouts with what the numbers mean, not only their index.
import { formatApprox } from './values.js';
import { niceTicks } from './axes.js';

const MS_PER = {
  nanosecond: 1e-6, microsecond: 1e-3, millisecond: 1, second: 1e3, minute: 6e4, hour: 3.6e6, day: 8.64e7, week: 6.048e8,
};
// Only calendars whose days and months are the ones JavaScript's Date counts.
const GREGORIAN = new Set(['standard', 'gregorian', 'proleptic_gregorian']);

/**
 * {msPer, epochMs, unit, epoch} for CF time units ("hours since 2000-01-01", "nanoseconds since
 * 1970-01-01 00:00:00"), or null when the units are not a time or the calendar is not Gregorian.
 */
export function parseTimeUnits(units, calendar = 'standard') {
  if (typeof units !== 'string' || !GREGORIAN.has(String(calendar).toLowerCase())) return null;
  const m = /^\s*([a-z]+?)s?\s+since\s+(\d{1,4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2}(?:\.\d+)?))?)?\s*(?:Z|UTC|\+0+(?::?0+)?)?\s*$/i.exec(units);
  if (!m) return null;
  const msPer = MS_PER[m[1].toLowerCase()];
  if (!msPer) return null;
  const [y, mo, d, h = 0, mi = 0, s = 0] = m.slice(2).map((x) => (x === undefined ? undefined : Number(x)));
  const epochMs = Date.UTC(y, mo - 1, d, h, mi, 0) + s * 1000;
  if (!Number.isFinite(epochMs)) return null;
  return { msPer, epochMs, unit: m[1].toLowerCase(), epoch: m.slice(2, 5).join('-') };
}

/** Milliseconds since 1970 of a stored time value (bigint nanoseconds stay exact to the millisecond). */
export function timeMs(time, value) {
  if (typeof value === 'bigint') {
    const per = BigInt(Math.round(1 / Math.min(1, time.msPer))); // values per millisecond (ns, µs, ms)
    if (time.msPer <= 1) return time.epochMs + Number(value / per) + Number(value % per) / Number(per);
    return time.epochMs + Number(value) * time.msPer;
  }
  return time.epochMs + Number(value) * time.msPer;
}

/** A date as ISO 8601 text, down to the minute, second or millisecond only when those are not zero. */
export function formatDate(ms) {
  if (!Number.isFinite(ms)) return String(ms);
  const iso = new Date(ms).toISOString(); // 2024-01-01T05:00:00.000Z
  if (iso.endsWith('T00:00:00.000Z')) return iso.slice(0, 10);
  if (iso.endsWith(':00.000Z')) return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
  if (iso.endsWith('.000Z')) return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
}

/** A number with its unit as people write it: 45°N, 20°W, 273.4 K, 0.002 m. */
export function withUnit(text, units) {
  if (!units) return text;
  const n = Number(text);
  const deg = /^degrees?_?(north|south|east|west|N|S|E|W)$/i.exec(units);
  if (deg && Number.isFinite(n)) {
    const axis = deg[1][0].toUpperCase();
    const [pos, neg] = axis === 'N' || axis === 'S' ? ['N', 'S'] : ['E', 'W'];
    const positive = axis === 'N' || axis === 'E' ? n >= 0 : n < 0;
    return `${text.replace(/^-/, '')}°${positive ? pos : neg}`;
  }
  return `${text} ${units}`;
}

/**
 * How one quantity reads: its name for an axis or colour bar ("2 metre temperature (K)"), and the
 * text of one of its values, rounded for ticks (tick) or exact for readouts (exact).
 * @param {{name: string, attributes?: object, exactText?: (v: any) => string}} options
 *   exactText: the value's exact text in its data type (default String)
 */
export function quantity({ name, attributes = {}, exactText = String }) {
  const units = typeof attributes.units === 'string' ? attributes.units : '';
  const time = parseTimeUnits(units, attributes.calendar ?? 'standard');
  const label = typeof attributes.long_name === 'string' && attributes.long_name !== name ? attributes.long_name : name;
  if (time) {
    return {
      name: `${label} (UTC)`,
      units,
      time,
      tick: (v) => formatDate(timeMs(time, v)),
      exact: (v) => formatDate(timeMs(time, v)),
      raw: (v) => `${exactText(v)} ${units}`,
    };
  }
  return {
    name: units ? `${label} (${units})` : label,
    units,
    time: null,
    tick: (v) => withUnit(formatApprox(Number(v)), /^degree/i.test(units) ? units : ''),
    exact: (v) => withUnit(exactText(v), units),
    raw: (v) => exactText(v),
  };
}

/**
 * The coordinate arrays of an array's dimensions: for each dimension name, a 1-D array of the same
 * name and length beside the array (or at the root). Returns [{dim, path} | null] per dimension.
 * @param {{path: string, shape: number[], dimensionNames: (string|null)[] | null}} description
 * @param {Array<{path: string, kind: string, description?: {shape: number[]}}>} nodes the store's known nodes
 */
export function coordinatePaths(description, nodes) {
  const names = description.dimensionNames ?? [];
  const parent = description.path.replace(/\/[^/]*$/, '');
  return description.shape.map((n, d) => {
    const dim = names[d];
    if (typeof dim !== 'string' || !dim) return null;
    const candidates = [`${parent}/${dim}`, `/${dim}`];
    const node = candidates.map((p) => nodes.find((x) => x.path === p)).find((x) => x?.kind === 'array' && x.description);
    if (!node || node.path === description.path) return null;
    const shape = node.description.shape;
    return shape.length === 1 && shape[0] === n ? { dim, path: node.path } : null;
  });
}

/**
 * Tick positions along part [i0, i1) of a numeric coordinate that is monotonic there: the indices
 * nearest round coordinate values (90°N, 60°N, ...), about `count` of them; null when the
 * coordinate is not numeric or not monotonic (ticks then go at round indices).
 */
export function coordinateTicks(values, i0, i1, count) {
  if (i1 - i0 < 2 || typeof values[i0] !== 'number') return null;
  const first = values[i0];
  const last = values[i1 - 1];
  const up = last > first;
  for (let i = i0 + 1; i < i1; i++) if (!(up ? values[i] > values[i - 1] : values[i] < values[i - 1])) return null;
  const [lo, hi] = up ? [first, last] : [last, first];
  const out = new Set();
  for (const t of niceTicks(lo, hi, count)) {
    // Binary search for the nearest index along the monotonic run.
    let a = i0;
    let b = i1 - 1;
    while (b - a > 1) {
      const m = (a + b) >> 1;
      if (up ? values[m] <= t : values[m] >= t) a = m;
      else b = m;
    }
    out.add(Math.abs(values[a] - t) <= Math.abs(values[b] - t) ? a : b);
  }
  return [...out].sort((p, q) => p - q);
}
