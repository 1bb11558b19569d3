// What each engine offers (pike-vm.ts, v8-linear.ts), and Go's loop for finding every match on
// top of it, so both engines find all matches alike.

export interface Matcher {
  /** Whether the pattern matches anywhere in `s` (Go's MatchString). */
  test(s: string): boolean;
  /**
   * The leftmost-first match starting at or after index `from`, as [start, end) indices (Go's
   * doExecute at that position: `^` holds only at 0, `\b` sees the character before).
   */
  match(s: string, from: number): [number, number] | undefined;
}

/**
 * Go's allMatches (FindAllString): successive matches, at most `n` when n >= 0. An empty match
 * right where the previous match ended is skipped, and after an empty match the search moves on
 * by one character.
 */
export function allMatches(matcher: Matcher, s: string, n: number): string[] {
  const out: string[] = [];
  let prevEnd = -1;
  for (let pos = 0; (n < 0 || out.length < n) && pos <= s.length; ) {
    const m = matcher.match(s, pos);
    if (!m) break;
    const [start, end] = m;
    const accept = !(start === end && start === prevEnd);
    if (start === end) pos = end + (end < s.length && s.codePointAt(end)! > 0xffff ? 2 : 1);
    else pos = end;
    prevEnd = end;
    if (accept) out.push(s.slice(start, end));
  }
  return out;
}
