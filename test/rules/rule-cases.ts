// The rules' own cases: src/rules/<id>/cases.yaml, each a PolicyTest (`hookkeeper test`'s format) whose cases may
// also say `native: differs`, found and loaded with src/transports/policy-test's loader. The unit test runs them on both engines
// in process; the e2e group replays them through a real API server.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { RULES } from '../../src/core/registry.js';
import type { RuleId } from '../../src/rules/rule-ids.js';
import { loadTestFile, type LoadedFile, type PolicyCache } from '../../src/transports/policy-test/load.js';

/** Relative to the repository root. */
export const RULES_DIR = join('src', 'rules');
export const CASES_FILE = 'cases.yaml';
/** Beside the rule folders: the embedded default as a file, for the cases that name it. */
export const DEFAULT_POLICY_FILE = join(RULES_DIR, 'default-policy.yaml');

/** Rules decided at admission (validated there, or mutating): each has cases unless excused below. */
export const ADMISSION_RULES: ReadonlySet<RuleId> = new Set(
  RULES.filter((r) => r.sources.includes('admission') || r.mutate !== undefined).map((r) => r.id),
);

export interface RuleCases {
  /** The folder's name: a rule id, if the folder is right. */
  rule: string;
  /** As named from the repository root. */
  file: string;
  loaded: LoadedFile;
}

/** The rule folders that hold cases, by name (every folder is a rule's: npm run render:rules refuses any other). */
export function ruleFolders(root: string): string[] {
  return readdirSync(join(root, RULES_DIR), { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(root, RULES_DIR, e.name, CASES_FILE)))
    .map((e) => e.name)
    .sort();
}

/** Every rule folder's cases, loaded (a shared policy loaded once). */
export async function loadRuleCases(root: string, policies: PolicyCache = new Map()): Promise<RuleCases[]> {
  const out: RuleCases[] = [];
  for (const rule of ruleFolders(root)) {
    const file = join(RULES_DIR, rule, CASES_FILE);
    if (!existsSync(join(root, file))) continue;
    out.push({ rule, file, loaded: await loadTestFile(file, root, policies, { ruleCases: true }) });
  }
  return out;
}
