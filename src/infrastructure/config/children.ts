// The `children` section of a policy file: checks the schema cannot express (name templates, label and finalizer
// syntax, the owner registry) and the defaults of each rule's optional fields.
import type { ChildRule, ParentAction, ParentKindRef, ParentNameSource } from '../../core/policy.js';
import { annotationKeyErrors, qualifiedNameErrors } from '../../core/qualified-name.js';
import { parseNameTemplate } from '../../rules/children-bind.js';
import type { ObjectSelector } from '../../core/policy.js';

export interface ChildRuleFile {
  name: string;
  match: ObjectSelector;
  parent: Omit<ParentKindRef, 'namespaced'> & { namespaced?: boolean; nameFrom: ParentNameSource };
  finalizer?: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
  onMissingParent?: ParentAction;
  onExistingController?: ChildRule['onExistingController'];
  onDeletingParent?: ParentAction;
  finalizerRemovers?: string[];
}

/**
 * Problems as [JSON pointer, message]; `owners` are the owner registry keys in force (file or default), undefined
 * when unknown (the owners section is invalid). `schemaValid(pointer)` says whether a field is present and passed the
 * schema: only such fields are checked here, so a schema error elsewhere in a rule does not hide these problems.
 */
export function childRuleProblems(
  rules: readonly ChildRuleFile[],
  owners: readonly string[] | undefined,
  schemaValid: (pointer: string) => boolean = () => true,
): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const names = new Set<string>();
  rules.forEach((r, i) => {
    const at = `/children/${i}`;
    if (typeof r !== 'object' || r === null) return;
    if (schemaValid(`${at}/name`)) {
      if (names.has(r.name)) out.push([`${at}/name`, `duplicate child rule name ${r.name}`]);
      names.add(r.name);
    }
    const from = schemaValid(`${at}/parent/nameFrom`) ? r.parent.nameFrom : undefined;
    if (from && 'label' in from)
      for (const e of qualifiedNameErrors(from.label)) out.push([`${at}/parent/nameFrom/label`, `label key: ${e}`]);
    if (from && 'annotation' in from)
      for (const e of annotationKeyErrors(from.annotation))
        out.push([`${at}/parent/nameFrom/annotation`, `annotation key: ${e}`]);
    if (from && 'template' in from) {
      const parsed = parseNameTemplate(from.template);
      if ('error' in parsed) out.push([`${at}/parent/nameFrom/template`, parsed.error]);
      else
        for (const p of parsed.parts) {
          if ('label' in p)
            for (const e of qualifiedNameErrors(p.label))
              out.push([`${at}/parent/nameFrom/template`, `label key ${JSON.stringify(p.label)}: ${e}`]);
          if ('annotation' in p)
            for (const e of annotationKeyErrors(p.annotation))
              out.push([`${at}/parent/nameFrom/template`, `annotation key ${JSON.stringify(p.annotation)}: ${e}`]);
        }
    }
    // Absent, or present and valid: what the finalizer checks below may read.
    const usable = (field: 'finalizer' | 'finalizerRemovers'): boolean =>
      r[field] === undefined || schemaValid(`${at}/${field}`);
    if (!usable('finalizer') || !usable('finalizerRemovers')) {
      // checked once the schema problems of these fields are fixed
    } else if (r.finalizer !== undefined) {
      // The API server's ValidateFinalizerName: a qualified name, and one with a domain unless it is a
      // built-in finalizer (which hookkeeper has no business managing).
      for (const e of qualifiedNameErrors(r.finalizer)) out.push([`${at}/finalizer`, e]);
      if (!r.finalizer.includes('/'))
        out.push([
          `${at}/finalizer`,
          `${JSON.stringify(r.finalizer)} is not fully qualified: use a domain you own, e.g. example.com/${r.finalizer}`,
        ]);
      if ((r.finalizerRemovers ?? []).length === 0) {
        out.push([
          `${at}/finalizerRemovers`,
          'a rule with a finalizer must name the owners (keys of "owners") whose identities remove it, or only break-glass could',
        ]);
      }
    } else if ((r.finalizerRemovers ?? []).length > 0) {
      out.push([
        `${at}/finalizerRemovers`,
        'finalizerRemovers without a finalizer: set finalizer, or drop finalizerRemovers',
      ]);
    }
    if (owners === undefined || !schemaValid(`${at}/finalizerRemovers`)) return;
    r.finalizerRemovers?.forEach((key, j) => {
      if (!owners.includes(key))
        out.push([`${at}/finalizerRemovers/${j}`, `${JSON.stringify(key)} is not registered under "owners"`]);
    });
  });
  return out;
}

/**
 * Defaults: a controller reference (as controller-runtime's SetControllerReference), no blockOwnerDeletion (with
 * the OwnerReferencesPermissionEnforcement admission plugin it needs update on the parent's finalizers), a missing
 * or deleting parent refuses the child, and an existing controller makes the parent a non-controller owner.
 */
export function withChildDefaults(r: ChildRuleFile): ChildRule {
  return {
    name: r.name,
    match: r.match,
    parent: { ...r.parent, namespaced: r.parent.namespaced ?? true },
    ...(r.finalizer === undefined ? {} : { finalizer: r.finalizer }),
    controller: r.controller ?? true,
    blockOwnerDeletion: r.blockOwnerDeletion ?? false,
    onMissingParent: r.onMissingParent ?? 'deny',
    onExistingController: r.onExistingController ?? 'nonController',
    onDeletingParent: r.onDeletingParent ?? 'deny',
    finalizerRemovers: r.finalizerRemovers ?? [],
  };
}
