// Composition root of the hookkeeper command: the only place that reads process.argv, env and streams.
import { runCli } from './program.js';

const code = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  isTTY: process.stdout.isTTY === true,
});
process.exitCode = code;
