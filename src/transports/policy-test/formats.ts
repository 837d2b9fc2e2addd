// `hookkeeper test --output`: every format, once; the CLI's choices and its check of -o come from these keys.
import { loadYamlRenderer, renderJson, type OutputFormat } from '../../infrastructure/format.js';
import type { PolicyTestReport } from './report.js';

export const TEST_FORMATS = {
  text: { load: async () => (await import('./text.js')).renderText },
  json: { load: () => Promise.resolve(renderJson) },
  yaml: { load: loadYamlRenderer },
  junit: { load: async () => (await import('./junit.js')).renderJunit },
} as const satisfies Record<string, OutputFormat<PolicyTestReport, Record<string, never>>>;

export type TestFormat = keyof typeof TEST_FORMATS;
