// Commander's parse errors ("error: unknown option '--x'") in hookkeeper's one form for flag errors, the form the
// commands' own checks use (flags.ts's flagError): `hookkeeper <command>: <flag>: <what is wrong>; <what works>`.
import type { Command, CommanderError } from 'commander';

/** "hookkeeper policy check": the command's names from the root. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** "-o, --output <format>" -> "-o/--output", as the commands name a flag with a short form. */
function flagName(flags: string): string {
  return flags
    .split(/[ ,|]+/)
    .filter((f) => f.startsWith('-'))
    .join('/');
}

/** Commander's "(Did you mean --x?)" or "(Did you mean one of a, b?)", as "did you mean ...?", if any. */
function suggestion(message: string): string | undefined {
  const m = /\(Did you mean (?:one of )?(.+)\?\)/.exec(message);
  return m ? `did you mean ${m[1]}?` : undefined;
}

/** The line to print for a commander error of `cmd`, or undefined for help and version (not errors). */
export function commanderErrorText(cmd: Command, err: CommanderError): string | undefined {
  if (err.exitCode === 0 || err.code === 'commander.help' || err.code === 'commander.helpDisplayed') return undefined;
  const path = commandPath(cmd);
  const help = `see ${path} --help`;
  const msg = err.message;
  const quoted = [...msg.matchAll(/'([^']*)'/g)].map((m) => m[1] ?? '');
  const [first = '', second = ''] = quoted;
  switch (err.code) {
    case 'commander.unknownOption':
      return `${path}: ${first}: no such option; ${suggestion(msg) ?? help}`;
    case 'commander.unknownCommand':
      return `${path}: ${first}: no such command; ${suggestion(msg) ?? `give one of ${cmd.commands.map((c) => c.name()).join(', ')}`}`;
    case 'commander.optionMissingArgument':
      return `${path}: ${flagName(first)}: needs a value; give ${first}`;
    case 'commander.missingMandatoryOptionValue':
      return `${path}: ${flagName(first)}: missing; give ${first}`;
    case 'commander.conflictingOption':
      return `${path}: ${flagName(first)}: cannot go with ${flagName(second)}; give one of them`;
    case 'commander.missingArgument':
      return `${path}: <${first}>: missing; ${help}`;
    case 'commander.excessArguments': {
      const counts = /Expected (\d+) arguments? but got (\d+)/.exec(msg);
      const takes = counts ? ` (it takes ${counts[1]}, got ${counts[2]})` : '';
      return `${path}: too many arguments${takes}; ${help}`;
    }
    default:
      return `${path}: ${msg.replace(/^error: /, '')}; ${help}`;
  }
}
