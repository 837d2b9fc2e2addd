// The trimmed report CRDs in test/fixtures (what the unit tests and the repo-only e2e run check the audit's reports
// against) say nothing upstream's do not: every type, enum, format and required list they hold is upstream's, at
// the same place. Needs ../shared/crds/reports (HOOKKEEPER_E2E_SHARED_CRDS); CI=true fails without it.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { UPSTREAM_REPORT_CRD_FILES } from '../../testing/control-plane/crds.js';
import { readControlPlaneSettings } from '../../testing/control-plane/settings.js';

type Schema = Record<string, unknown>;
interface Crd {
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: Record<string, string>;
    versions: Array<{ name: string; schema: { openAPIV3Schema: Schema } }>;
  };
}

const settings = readControlPlaneSettings();
const TRIMMED = ['audit-policyreport-crds.yaml', 'audit-openreports-crds.yaml'].map((f) =>
  join(settings.repoRoot, 'test', 'fixtures', f),
);
const upstreamFiles = UPSTREAM_REPORT_CRD_FILES.map((f) => join(settings.sharedCrdDir, f));
const absent = upstreamFiles.filter((f) => !existsSync(f));

function crdsIn(files: readonly string[]): Map<string, Crd> {
  const docs = files.flatMap((f) => parseAllDocuments(readFileSync(f, 'utf8')).map((d) => d.toJS() as Crd | null));
  return new Map(docs.filter((d): d is Crd => d !== null).map((d) => [d.metadata.name, d]));
}

/** Where `trimmed` says something upstream does not say the same way, one line each. */
function differences(trimmed: Schema, upstream: Schema | undefined, path: string): string[] {
  if (!upstream) return [`${path}: not in upstream's schema`];
  const out = ['type', 'enum', 'format', 'required']
    .filter((k) => k in trimmed && JSON.stringify(trimmed[k]) !== JSON.stringify(upstream[k]))
    .map((k) => `${path}.${k}: ${JSON.stringify(trimmed[k])}, upstream ${JSON.stringify(upstream[k])}`);
  for (const [name, child] of Object.entries((trimmed['properties'] ?? {}) as Record<string, Schema>)) {
    out.push(
      ...differences(child, (upstream['properties'] as Record<string, Schema> | undefined)?.[name], `${path}.${name}`),
    );
  }
  for (const k of ['items', 'additionalProperties'] as const) {
    if (typeof trimmed[k] === 'object')
      out.push(...differences(trimmed[k] as Schema, upstream[k] as Schema | undefined, `${path}.${k}`));
  }
  return out;
}

describe("trimmed report CRDs (test/fixtures) against upstream's", () => {
  if (absent.length > 0) {
    test('upstream report CRDs present', { skip: settings.ci ? false : `not found: ${absent.join(', ')}` }, () => {
      assert.fail(`upstream report CRDs not found: ${absent.join(', ')} (set HOOKKEEPER_E2E_SHARED_CRDS)`);
    });
    return;
  }
  const upstream = crdsIn(upstreamFiles);
  for (const [name, crd] of crdsIn(TRIMMED)) {
    test(`${name}: same group, scope and names; each served version's schema a part of upstream's`, () => {
      const real = upstream.get(name);
      assert.ok(real, `${name} is not one of upstream's CRDs`);
      assert.deepEqual(
        [crd.spec.group, crd.spec.scope, crd.spec.names['kind'], crd.spec.names['plural']],
        [real.spec.group, real.spec.scope, real.spec.names['kind'], real.spec.names['plural']],
      );
      for (const v of crd.spec.versions) {
        const realVersion: Crd['spec']['versions'][number] | undefined = real.spec.versions.find(
          (r) => r.name === v.name,
        );
        assert.ok(realVersion, `${name}: upstream does not serve ${v.name}`);
        assert.deepEqual(differences(v.schema.openAPIV3Schema, realVersion.schema.openAPIV3Schema, v.name), []);
      }
    });
  }
  test('the comparison finds a difference (it can fail)', () => {
    const real = upstream.get('reports.openreports.io')?.spec.versions[0]?.schema.openAPIV3Schema ?? {};
    const wrong = {
      type: 'object',
      properties: { summary: { type: 'object', properties: { pass: { type: 'string' }, score: { type: 'integer' } } } },
    };
    assert.deepEqual(differences(wrong, real, 'v1alpha1'), [
      'v1alpha1.summary.pass.type: "string", upstream "integer"',
      "v1alpha1.summary.score: not in upstream's schema",
    ]);
  });
});
