// Round trips, as a reader waits for them: over a real network each costs 50-150 ms whatever its
// size, so the request counters show them beside requests and bytes. A round trip (a "wave") is
// counted for each request that starts while none of the others is in flight; requests sent
// together share one. Read from the browser's own resource timings, not guessed.

const entries = []; // PerformanceResourceTiming of every request the page made

if (typeof PerformanceObserver === 'function') {
  performance.setResourceTimingBufferSize?.(1e5);
  new PerformanceObserver((list) => entries.push(...list.getEntries())).observe({ type: 'resource', buffered: true });
}

/**
 * A counter of the round trips to addresses starting with `prefix`, from now on.
 * @param {string} prefix an absolute URL (a directory's or store's base, or a file's address)
 * @returns {() => number} the round trips so far
 */
export function countRoundTrips(prefix) {
  const since = performance.now();
  return () => {
    // The timeline has a finished request at once; the observer reports it a little later (a
    // counter read meanwhile showed "1 request in 0 round trips"). Its list is kept for when the
    // timeline's buffer is full.
    const timeline = performance.getEntriesByType?.('resource') ?? [];
    const all = timeline.length >= entries.length ? timeline : entries;
    const mine = all.filter((e) => e.startTime >= since && e.name.startsWith(prefix)).sort((a, b) => a.startTime - b.startTime);
    let waves = 0;
    let busyUntil = -Infinity;
    for (const e of mine) {
      if (e.startTime >= busyUntil) waves++;
      busyUntil = Math.max(busyUntil, e.responseEnd);
    }
    return waves;
  };
}
