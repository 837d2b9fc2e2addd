// Waiting in tests for something that happens on its own time (a server's reload, an informer's list): poll until
// it holds. No verdict rests on how long that takes; the bound only keeps a broken test from hanging the run.

/**
 * How long a test, a suite or a wait may take before it counts as hung: generous enough for CI's pass beside two
 * CPU-bound processes under forced garbage collection, so that it never decides a verdict.
 */
export const HANG_GUARD_MS = 600_000;
// Taken before any test mocks timers (node:test mock.timers), so a wait keeps real time under mocked timers too.
const { setTimeout: realSetTimeout } = globalThis;
const realNow = Date.now.bind(Date);

/** Resolves once `check` holds; rejects (naming `what`) only if it still does not after the hang guard. */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  what = 'the condition',
  stepMs = 20,
): Promise<void> {
  const giveUp = realNow() + HANG_GUARD_MS;
  for (;;) {
    if (await check()) return;
    if (realNow() > giveUp) throw new Error(`hang guard: still waiting for ${what} after ${HANG_GUARD_MS / 1000} s`);
    await new Promise((r) => realSetTimeout(r, stepMs));
  }
}
