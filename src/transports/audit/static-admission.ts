// Which static admission manifests the API server that answered runs, from its own metrics: the hash of each
// plugin's directory, compared with the hash of this policy's `render --static` (default options), and failed reloads.
import { manifestDirHash, staticFileText } from '../../compilers/deploy/static-files.js';
import { staticManifests } from '../../compilers/native/static.js';
import { DEFAULT_STATIC_ROOT, STATIC_DIRS, STATIC_FILE } from '../../compilers/native/static-layout.js';
import type { Policy } from '../../core/policy.js';
import type { MetricsText } from '../../infrastructure/kube/metrics.js';

const METRIC = 'apiserver_manifest_admission_config_controller';
const PLUGINS = { ValidatingAdmissionPolicy: STATIC_DIRS.validating, MutatingAdmissionPolicy: STATIC_DIRS.mutating };
type Plugin = keyof typeof PLUGINS;

export interface StaticPluginStatus {
  plugin: Plugin;
  /** The hash the API server reports for the set in force. */
  hash: string;
  /** This policy's render (default options) has that hash: hookkeeper's static set for this policy is in force. */
  matchesPolicy: boolean;
  /** Reloads of the directory the API server refused since it started (the last good set stayed). */
  failedReloads: number;
}

export interface StaticAdmissionStatus {
  /** Metrics read from the API server; false: not readable by the caller (the reason is in `note`). */
  readable: boolean;
  /** The answering API server's identity hash (one of several behind a load balancer). */
  apiServer?: string;
  plugins: StaticPluginStatus[];
  note: string;
}

export function staticAdmissionStatus(metrics: MetricsText, policy: Policy): StaticAdmissionStatus {
  if ('unreadable' in metrics) {
    return { readable: false, plugins: [], note: `static admission manifests: not checked (${metrics.unreadable})` };
  }
  const lines = metrics.text.split('\n').filter((l) => l.startsWith(METRIC));
  const expected = expectedHashes(policy);
  const plugins: StaticPluginStatus[] = [];
  const empty: Plugin[] = [];
  let apiServer: string | undefined;
  for (const plugin of Object.keys(PLUGINS) as Plugin[]) {
    const info = lines.find((l) => l.startsWith(`${METRIC}_last_config_info{`) && label(l, 'plugin') === plugin);
    const hash = info ? label(info, 'hash') : undefined;
    if (info && hash === '') empty.push(plugin);
    if (!info || !hash) continue;
    apiServer ??= label(info, 'apiserver_id_hash');
    const failures = lines.find(
      (l) =>
        l.startsWith(`${METRIC}_automatic_reloads_total{`) &&
        label(l, 'plugin') === plugin &&
        label(l, 'status') === 'failure',
    );
    plugins.push({
      plugin,
      hash,
      matchesPolicy: hash === expected[plugin],
      failedReloads: failures ? Number(failures.trim().split(/\s+/).at(-1)) || 0 : 0,
    });
  }
  return { readable: true, ...(apiServer ? { apiServer } : {}), plugins, note: describe(plugins, empty) };
}

function describe(plugins: readonly StaticPluginStatus[], empty: readonly Plugin[]): string {
  if (plugins.length === 0) {
    // An empty hash is a set with no manifests in it; no metric at all, no manifest-based admission in that server.
    return empty.length > 0
      ? `static admission manifests: the API server that answered reports none in force (an empty set for ${empty.join(' and ')})`
      : 'static admission manifests: the API server that answered reports none (no metric: a Kubernetes before 1.36, or manifest-based admission not configured)';
  }
  const parts = plugins.map((p) => {
    const whose = p.matchesPolicy
      ? "hookkeeper's render of this policy"
      : 'not the render of this policy with default options (another policy or version of hookkeeper, other options, or other files in the directory)';
    const failed = p.failedReloads > 0 ? `; ${p.failedReloads} reload(s) refused, the last good set stays` : '';
    return `${p.plugin} ${p.hash}: ${whose}${failed}`;
  });
  return `static admission manifests on the API server that answered: ${parts.join('; ')}`;
}

function expectedHashes(policy: Policy): Partial<Record<Plugin, string>> {
  const render = staticManifests(policy, {
    k8sVersion: '1.37',
    root: DEFAULT_STATIC_ROOT,
    selfProtection: { webhookConfigurations: ['hookkeeper'] },
  });
  const hashOf = (dir: string): string | undefined => {
    const file = render.files.find((f) => f.path === `${dir}/${STATIC_FILE}`);
    return file ? manifestDirHash([{ name: STATIC_FILE, content: staticFileText(file) }]) : undefined;
  };
  const out: Partial<Record<Plugin, string>> = {};
  for (const [plugin, dir] of Object.entries(PLUGINS) as [Plugin, string][]) {
    const hash = hashOf(dir);
    if (hash) out[plugin] = hash;
  }
  return out;
}

/** A Prometheus text label's value (no escapes occur in these labels' values). */
function label(line: string, name: string): string | undefined {
  return new RegExp(`[{,]${name}="([^"]*)"`).exec(line)?.[1];
}
