// Load for the hardening tests over real TLS on loopback: closed-loop workers (steady pressure until stopped) and a
// fixed-rate driver. Every answer is checked; a failure is any error, any unexpected status or decision.
import { Agent, request } from 'node:https';
import { createMasterReview, removeEtcdHookReview, statusUpdateReview } from '../fixtures/hardening-machine.js';

export interface Target {
  port: number;
  ca: string | Buffer;
}

export interface Shot {
  path: string;
  body: string;
  /** Returns what is wrong with an answer, or undefined when it is right. */
  check(status: number, body: string): string | undefined;
}

export interface Summary {
  sent: number;
  ok: number;
  failures: string[];
}

export interface SendOptions {
  agent: Agent | false;
  /** Called once the whole request has been handed to the socket. */
  onSent?: () => void;
}

export function send(target: Target, shot: Shot, options: SendOptions): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: target.port,
        path: shot.path,
        method: 'POST',
        ca: target.ca,
        agent: options.agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(shot.body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => resolve(`response: ${err.message}`));
        // 'aborted' then 'close' without 'end': the server cut the response short.
        res.on('close', () => {
          if (!res.complete) resolve('response cut short');
        });
        res.on('end', () => resolve(shot.check(res.statusCode ?? 0, Buffer.concat(chunks).toString())));
      },
    );
    req.on('error', (err) => resolve(`request: ${(err as NodeJS.ErrnoException).code ?? err.message}`));
    req.end(shot.body, () => options.onSent?.());
  });
}

export function keepAliveAgent(target: Target, maxSockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets, ca: target.ca });
}

export interface ClosedLoop {
  /** Requests answered so far. */
  completed(): number;
  /** Stops issuing requests, waits for those in flight, and sums up. */
  stop(): Promise<Summary>;
}

/** `workers` loops, each sending its next request as soon as the last is answered; shots are taken in turn. */
/**
 * Keeps `workers` requests in flight until stop(), or until `maxMs` have passed: a test that fails before it
 * calls stop() must not leave the loop (and so the test process) running.
 */
export function closedLoop(
  target: Target,
  shots: readonly Shot[],
  workers: number,
  agent: Agent | false,
  maxMs = 60_000,
): ClosedLoop {
  const summary: Summary = { sent: 0, ok: 0, failures: [] };
  let running = true;
  let next = 0;
  const deadline = setTimeout(() => {
    running = false;
  }, maxMs);
  deadline.unref();
  const loops = Array.from({ length: workers }, async () => {
    while (running) {
      const shot = shots[next++ % shots.length] as Shot;
      summary.sent++;
      const problem = await send(target, shot, { agent });
      if (problem === undefined) summary.ok++;
      else summary.failures.push(`${shot.path}: ${problem}`);
    }
  });
  return {
    completed: () => summary.ok + summary.failures.length,
    async stop() {
      running = false;
      clearTimeout(deadline);
      await Promise.all(loops);
      return summary;
    },
  };
}

/** Sends `rate` requests per second for `seconds`, paced in 10 ms ticks, and waits for every answer. */
export async function fixedRate(
  target: Target,
  shots: readonly Shot[],
  rate: number,
  seconds: number,
  agent: Agent,
): Promise<Summary> {
  const summary: Summary = { sent: 0, ok: 0, failures: [] };
  const pending: Array<Promise<void>> = [];
  const total = Math.round(rate * seconds);
  const start = performance.now();
  while (summary.sent < total) {
    // Catch up to where the schedule says we should be, so a slow tick does not lower the rate.
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
    while (summary.sent < due) {
      const shot = shots[summary.sent % shots.length] as Shot;
      summary.sent++;
      pending.push(
        send(target, shot, { agent }).then((problem) => {
          if (problem === undefined) summary.ok++;
          else summary.failures.push(`${shot.path}: ${problem}`);
        }),
      );
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  await Promise.all(pending);
  return summary;
}

/** Checks an AdmissionReview answer: HTTP 200, the uid echoed, and the expected decision. */
export function expectDecision(uid: string, decision: 'allowed' | 'denied' | 'patched'): Shot['check'] {
  return (status, body) => {
    if (status !== 200) return `HTTP ${status}: ${body.slice(0, 200)}`;
    let response: { uid?: string; allowed?: boolean; patch?: string } | undefined;
    try {
      response = (JSON.parse(body) as { response?: typeof response }).response;
    } catch {
      return `not JSON: ${body.slice(0, 200)}`;
    }
    if (response?.uid !== uid) return `uid ${String(response?.uid)} instead of ${uid}`;
    const got = !response.allowed ? 'denied' : response.patch ? 'patched' : 'allowed';
    return got === decision ? undefined : `${got} instead of ${decision}`;
  };
}

/** The realistic traffic mix: a status update (allowed), a hook removal by an ordinary user (denied), a control-plane CREATE (patched). */
export function realisticShots(prefix: string): Shot[] {
  return [
    {
      path: '/validate?timeout=10s',
      body: JSON.stringify(statusUpdateReview(`${prefix}-update`)),
      check: expectDecision(`${prefix}-update`, 'allowed'),
    },
    {
      path: '/validate?timeout=10s',
      body: JSON.stringify(removeEtcdHookReview(`${prefix}-remove`)),
      check: expectDecision(`${prefix}-remove`, 'denied'),
    },
    {
      path: '/mutate?timeout=10s',
      body: JSON.stringify(createMasterReview(`${prefix}-create`)),
      check: expectDecision(`${prefix}-create`, 'patched'),
    },
  ];
}
