// JSON Pointer (RFC 6901) reference tokens, escaped and unescaped in one place: policy problems, YAML line lookups
// and CRD findings all turn keys such as annotation names ("example.com/x") into pointers and back.

/** "~" -> "~0", "/" -> "~1". */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** "~1" -> "/", "~0" -> "~" (in that order, so "~01" stays "~1"). */
export function unescapePointerToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}
