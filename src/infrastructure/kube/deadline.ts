// The time limit of every request hookkeeper sends to the API server: one explicit timer that aborts the request's
// signal and is cleared when the request ends. Not AbortSignal.timeout: on Node 20 a timeout signal held only through
// AbortSignal.any can be garbage-collected before it fires, and the request then waits for ever.

/** The limit, not the caller, ended the request. */
export class RequestTimeout extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'RequestTimeout';
  }
}

export interface Deadline {
  /** Aborts when the time is up (reason: a RequestTimeout) or when the caller's signal aborts (its reason). */
  readonly signal: AbortSignal;
  /** The time ran out (not the caller's signal). */
  expired(): boolean;
  /**
   * Settles as `work` does, or rejects with the signal's reason as soon as it aborts: a transport that ignores its
   * signal cannot hold the caller past the limit.
   */
  race<T>(work: Promise<T>): Promise<T>;
  /** Clears the timer and lets go of the caller's signal; idempotent. */
  end(): void;
}

/** Starts the clock: `ms` from now, or sooner if `caller` aborts. Call end() when the request is over. */
export function startDeadline(ms: number, caller?: AbortSignal): Deadline {
  const controller = new AbortController();
  let expired = false;
  // Held by the timer list until it fires or is cleared, with the controller in its closure: nothing here can be
  // collected while the request waits.
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new RequestTimeout(ms));
  }, ms);
  const follow = (): void => controller.abort(caller?.reason);
  if (caller?.aborted) follow();
  else caller?.addEventListener('abort', follow, { once: true });

  const end = (): void => {
    clearTimeout(timer);
    caller?.removeEventListener('abort', follow);
  };
  if (controller.signal.aborted) end();
  controller.signal.addEventListener('abort', end, { once: true });

  return {
    signal: controller.signal,
    expired: () => expired,
    race<T>(work: Promise<T>): Promise<T> {
      const { signal } = controller;
      if (signal.aborted) {
        work.catch(() => undefined);
        return Promise.reject(signal.reason as unknown);
      }
      return new Promise<T>((resolve, reject) => {
        const abandon = (): void => {
          work.catch(() => undefined);
          reject(signal.reason as unknown);
        };
        signal.addEventListener('abort', abandon, { once: true });
        work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abandon));
      });
    },
    end,
  };
}

/** One request under its own limit: `send` gets the signal to pass on; the timer is cleared however it ends. */
export async function withDeadline<T>(
  ms: number,
  send: (signal: AbortSignal) => Promise<T>,
  caller?: AbortSignal,
): Promise<T> {
  const deadline = startDeadline(ms, caller);
  try {
    return await deadline.race(send(deadline.signal));
  } finally {
    deadline.end();
  }
}
