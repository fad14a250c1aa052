// Playwright: requests matching `pattern` answered `delayMs` late (a slow server), counted, and a
// wait until none has been pending for `quietMs` (everything the slow reader asked for answered).
export async function slowRoute(page, pattern, delayMs) {
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const state = { pending: 0, answered: 0 };
  await page.route(pattern, async (route) => {
    state.pending++;
    await sleep(delayMs);
    await route.continue();
    state.answered++;
    state.pending--;
  });
  state.untilQuiet = async (quietMs = 2000, maxMs = 60000) => {
    for (let quiet = 0, t = 0; quiet < quietMs && t < maxMs; t += 100) {
      await sleep(100);
      quiet = state.pending === 0 ? quiet + 100 : 0;
    }
  };
  return state;
}
