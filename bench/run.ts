// `npm run bench`: builds, measures every figure next to its floor in one run, and writes the results section
// of BENCHMARKS.md. Flags: --quick (short runs, to check the bench itself),
// --only=engine,http,profile,validate,cluster,startup (cluster = audit and admission, also named alone),
// --no-write (print only).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterFigures } from './cluster.js';
import { engineFigure } from './engine.js';
import { httpFigure } from './http.js';
import { profileFigure } from './profile.js';
import { currentLoad, describeMachine } from './machine.js';
import { renderResults, writeResults, type Results } from './report.js';
import { prepareTls, REPO, transpileFloor } from './servers.js';
import { startupFigure } from './startup.js';
import { validateFigure } from './validate-cli.js';

const FIGURES = ['engine', 'http', 'profile', 'validate', 'cluster', 'startup'] as const;
type Figure = (typeof FIGURES)[number];

function has(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const log = (line: string): void => {
  process.stderr.write(`[bench] ${line}\n`);
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const write = !args.includes('--no-write') && !quick;
  const only = args
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',') ?? [...FIGURES];
  const wanted = (f: Figure): boolean => only.includes(f);
  // `cluster` is both figures through kube-apiserver; `audit` (4) and `admission` (5) name one each.
  const wantedAudit = wanted('cluster') || only.includes('audit');
  const wantedAdmission = wanted('cluster') || only.includes('admission');

  const machine = describeMachine();
  const needsServers = wanted('http') || wanted('profile') || wanted('startup');
  const needsBuild = needsServers || wanted('validate') || wantedAudit || wantedAdmission;
  if ((wanted('http') || wanted('profile')) && !has('wrk'))
    throw new Error('wrk is not installed: apt-get update && apt-get install -y wrk');
  // Two CPUs or more: the servers get the last CPU, wrk the first, so the load generator never steals the server's core.
  const pin = has('taskset') && machine.nproc >= 2;
  const serverCpu = pin ? machine.nproc - 1 : undefined;
  const loadCpu = pin ? 0 : undefined;
  const pinning = pin
    ? `servers on CPU ${serverCpu} (\`taskset -c ${serverCpu}\`, every thread of the process), wrk on CPU ${loadCpu}; the bench process itself is idle while they run.`
    : 'none (taskset missing or one CPU): load generator and server share the CPUs.';

  const commands: string[] = ['npm run bench', '# = node --import tsx bench/run.ts; it runs:'];
  const results: Results = {
    date: new Date().toISOString().slice(0, 10),
    machine,
    loadAtEnd: 0,
    pinning,
    commands,
    omitted: [],
  };

  if (needsBuild) {
    log('building (npm run build)');
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'] });
    commands.push('npm run build');
  }
  if (wanted('engine')) {
    log('figure 1: engine');
    results.engine = engineFigure();
  }
  const dir = mkdtempSync(join(tmpdir(), 'hookkeeper-bench-'));
  try {
    if (needsServers) {
      const tls = await prepareTls(dir);
      const floorFile = transpileFloor(dir);
      commands.push(`# floor: bench/floor-server.ts transpiled to $TMP/floor-server.mjs (typescript transpileModule)`);
      if (wanted('http')) {
        log('figure 2: webhook over HTTPS');
        const o = quick
          ? { seconds: 2, rounds: 1, connections: 32, fixedSeconds: 3, fixedRounds: 1 }
          : { seconds: 4, rounds: 5, connections: 32, fixedSeconds: 10, fixedRounds: 3 };
        results.http = await httpFigure(
          { ...o, ...(serverCpu === undefined ? {} : { serverCpu, loadCpu }) },
          tls,
          floorFile,
          dir,
          log,
        );
        commands.push('# servers (one process each):', ...results.http.serverCommands);
        commands.push(
          '# load, 3 s warm-up each, then in alternating rounds:',
          ...new Set(results.http.pairs.flatMap((p) => p.contenders.map((c) => c.command))),
        );
        commands.push(
          '# fixed rate (the last argument, req/s):',
          ...new Set(results.http.pairs.flatMap((p) => p.fixedRate.map((f) => f.command))),
        );
      }
      if (wanted('profile')) {
        log('figure 2, profiled: floor and webhook under --cpu-prof');
        results.profile = await profileFigure(
          { seconds: quick ? 2 : 8, ...(serverCpu === undefined ? {} : { serverCpu, loadCpu }) },
          tls,
          floorFile,
          dir,
        );
        commands.push(
          '# profile: the floor and the webhook commands above with node --cpu-prof --cpu-prof-dir=$TMP/prof-..., the same wrk load (2 s warm-up, then 8 s measured)',
        );
      }
      if (wanted('startup')) {
        log('figure 6: start-up');
        results.startup = await startupFigure(
          {
            repeats: quick ? 1 : 5,
            settleMs: quick ? 500 : 2000,
            ...(serverCpu === undefined ? {} : { cpu: serverCpu }),
          },
          tls,
          floorFile,
          dir,
        );
        commands.push(
          '# start-up: each command above at the default log level, spawn until GET /readyz answers 200 (polled every 5 ms), 5 times in turns',
        );
      }
    }
    if (wanted('validate')) {
      log('figure 3: validate CLI');
      results.validate = await validateFigure(dir, quick ? 1 : 7);
      commands.push(
        '# validate: 1,000 generated files of 10 Machine documents in $TMP/manifests (and one document in $TMP/one), each command timed by /usr/bin/time, in turns:',
        ...results.validate.commands,
      );
    }
    if (wantedAdmission || wantedAudit) {
      log(
        `${wantedAudit && wantedAdmission ? 'figures 4 and 5' : wantedAudit ? 'figure 4' : 'figure 5'}: through kube-apiserver (testing/control-plane; the first run on a machine builds it, ~8 min)`,
      );
      const cluster = await clusterFigures(
        {
          admission: wantedAdmission,
          audit: wantedAudit,
          ...(quick
            ? { samples: 20, rounds: 1, profileSeconds: 2, objects: 600, smaller: 200, repeats: 1 }
            : { samples: 500, rounds: 3, profileSeconds: 10, objects: 10_000, smaller: 2_000, repeats: 5 }),
        },
        dir,
        log,
      );
      if (cluster.admission) {
        results.admission = cluster.admission;
        commands.push(
          '# admission overhead: kube-apiserver + etcd and `node dist/transports/cli/main.js serve --log-level info` started by testing/control-plane; one POST, then one merge PATCH, at a time',
          ...cluster.admission.commands,
        );
      }
      if (cluster.audit) {
        results.audit = cluster.audit;
        commands.push('# audit, in turns after one warm-up list:', ...cluster.audit.commands);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  results.loadAtEnd = currentLoad();
  const section = renderResults(results);
  process.stdout.write(`${section}\n`);
  if (write) {
    writeResults(join(REPO, 'BENCHMARKS.md'), section);
    log('wrote BENCHMARKS.md');
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
