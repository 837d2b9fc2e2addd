// What an output format of `validate` or `audit` is: a renderer loaded only when chosen, so a run pays for its own
// format alone. Each command keeps a registry of these; its keys are the --output choices.

/** Renders a report as the text a command prints. */
export type Render<Report, Options> = (report: Report, options: Options) => string;

export interface OutputFormat<Report, Options> {
  /** Shown after the name in --help, e.g. the API of the objects it prints; absent for a self-explaining name. */
  readonly help?: string;
  readonly load: () => Promise<Render<Report, Options>>;
}

/** The report as it is: the documented JSON document. */
export function renderJson(report: unknown): string {
  return JSON.stringify(report, null, 2);
}

/** The same document as YAML (kubectl's -o yaml), no line folded; the yaml package is loaded only when chosen. */
export async function loadYamlRenderer(): Promise<(report: unknown) => string> {
  const { stringify } = await import('yaml');
  return (report) => stringify(report, { lineWidth: 0 });
}

/** The names of a registry, in its order, typed as its keys. */
export function formatNames<Name extends string>(registry: Readonly<Record<Name, unknown>>): Name[] {
  return Object.keys(registry) as Name[];
}

/** Whether `name` is one of the registry's formats (own keys only: "toString" is not a format). */
export function isFormat<Name extends string>(registry: Readonly<Record<Name, unknown>>, name: string): name is Name {
  return Object.hasOwn(registry, name);
}

/** "text, json, policyreport (wgpolicyk8s.io/v1alpha2 PolicyReport ...)": the choices as --help lists them. */
export function describeFormats(
  registry: Readonly<Record<string, { readonly help?: string; readonly load: unknown }>>,
): string {
  return Object.entries(registry)
    .map(([name, f]) => (f.help === undefined ? name : `${name} (${f.help})`))
    .join(', ');
}
