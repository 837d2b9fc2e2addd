// Whether a certificate is within its validity period: clients refuse one that is not, so serve must not use it.

export type ValidityProblem = { kind: 'expired' | 'not-yet-valid'; message: string };

/** The problem with serving a certificate valid from `notBefore` to `notAfter` (inclusive) at `now`, if any. */
export function validityProblem(notBefore: Date, notAfter: Date, now: Date): ValidityProblem | undefined {
  if (now.getTime() > notAfter.getTime()) {
    return { kind: 'expired', message: `has expired: valid until ${notAfter.toISOString()}, now ${now.toISOString()}` };
  }
  if (now.getTime() < notBefore.getTime()) {
    return {
      kind: 'not-yet-valid',
      message: `is not valid yet: valid from ${notBefore.toISOString()}, now ${now.toISOString()}`,
    };
  }
  return undefined;
}
