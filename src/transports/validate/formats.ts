// `validate --output`: every format, once. A new format is one renderer file plus one line here; the CLI's choices,
// its help and its check of --output all come from this registry, so no branch can fall through to another format.
import { loadYamlRenderer, renderJson, type OutputFormat } from '../../infrastructure/format.js';
import type { ValidateRenderOptions, ValidateReport } from './report.js';

export type { ValidateRenderOptions } from './report.js';

export const VALIDATE_FORMATS = {
  text: { load: async () => (await import('./text.js')).renderText },
  json: { load: () => Promise.resolve(renderJson) },
  yaml: { load: loadYamlRenderer },
  junit: { load: async () => (await import('./junit.js')).renderJunit },
  sarif: { load: async () => (await import('./sarif.js')).renderSarif },
  github: { load: async () => (await import('./github.js')).renderGithub },
} as const satisfies Record<string, OutputFormat<ValidateReport, ValidateRenderOptions>>;

export type ValidateFormat = keyof typeof VALIDATE_FORMATS;
