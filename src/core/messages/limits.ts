// Bounds on what both engines say.

/** One violation in a denial, as JSON bytes (a deletion-freeze message lists every new hook); CEL cuts the same. */
export const MAX_VIOLATION_BYTES = 2 * 1024;
