// The problems parsePolicy reports for a policy text that must be refused: line, path and message, as users see them.
import assert from 'node:assert/strict';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import { AppError } from '../../src/errors.js';

export interface PolicyProblem {
  line?: number;
  path?: string;
  message: string;
}

export function policyProblems(text: string): PolicyProblem[] {
  try {
    parsePolicy(text, 'policy.yaml');
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, 'CONFIG_INVALID');
    return err.problems.map((p) => ({
      ...(p.line === undefined ? {} : { line: p.line }),
      ...(p.path === undefined ? {} : { path: p.path }),
      message: p.message,
    }));
  }
  assert.fail('expected the policy to be rejected');
}
