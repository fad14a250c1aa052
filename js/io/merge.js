// Ranges close together become one request: fewer round trips cost less than the few gap bytes.

/**
 * Groups [start, end) ranges whose gaps are below `gap` bytes. Returns
 * [{ start, end, members: [index into ranges, ...] }] sorted by start.
 */
export function mergeRanges(ranges, gap) {
  const order = ranges.map((r, i) => i).sort((a, b) => ranges[a][0] - ranges[b][0] || ranges[a][1] - ranges[b][1]);
  const groups = [];
  for (const i of order) {
    const [s, e] = ranges[i];
    const last = groups[groups.length - 1];
    if (last && s - last.end <= gap) {
      last.end = Math.max(last.end, e);
      last.members.push(i);
    } else {
      groups.push({ start: s, end: e, members: [i] });
    }
  }
  return groups;
}
