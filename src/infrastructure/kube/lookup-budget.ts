// How long a review may wait for the cluster (parent lookups, SubjectAccessReviews): a leaf, so the lookups and the
// context that starts them both read it without importing each other.

/** The webhooks' timeoutSeconds is 5: 1.5 s leaves room for the API server's own hops and the review itself. */
export const DEFAULT_LOOKUP_BUDGET_MS = 1500;
