// The error a promise rejects with, for tests that check several of its fields; a promise that
// fulfils fails the test.
export async function rejection(promise) {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

// The error a call throws, likewise; a call that returns fails the test.
export function thrown(fn) {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}
