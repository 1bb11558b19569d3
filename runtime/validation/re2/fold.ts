// Go's case-fold orbits (unicode.SimpleFold), which (?i) matches against: every rune that simple
// case folding (CaseFolding.txt, statuses C and S) makes equal to another. An orbit can hold more
// than a lower and an upper form: k K U+212A (KELVIN SIGN), s S U+017F (LONG S), σ ς Σ, ß U+1E9E,
// Å å U+212B, the titlecase digraphs (Ǆ ǅ ǆ). JavaScript's String case mappings miss those links,
// but its /iu matching canonicalizes by the same simple case folding; the orbits are the runes
// joined by a case mapping, kept only where /iu agrees they fold together.

/** The last rune Go folds (unicode's maxFold); nothing above it has another case. */
const MAX_FOLD = 0x1e943;

let orbits: Map<number, number[]> | undefined;

function foldsTogether(a: number, b: number): boolean {
  const escaped = `\\u{${a.toString(16)}}`;
  return new RegExp(`^${escaped}$`, 'iu').test(String.fromCodePoint(b));
}

/** A single-rune case mapping of `cp`, or undefined. */
function mapped(cp: number, to: 'lower' | 'upper'): number | undefined {
  const ch = String.fromCodePoint(cp);
  const other = to === 'lower' ? ch.toLowerCase() : ch.toUpperCase();
  const o = other.codePointAt(0)!;
  return o !== cp && other.length === String.fromCodePoint(o).length ? o : undefined;
}

function buildOrbits(): Map<number, number[]> {
  // Union-find over runes joined by a lower- or uppercase mapping that simple folding confirms.
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    let root = x;
    while (parent.has(root) && parent.get(root) !== root) root = parent.get(root)!;
    parent.set(x, root);
    return root;
  };
  for (let cp = 0; cp <= MAX_FOLD; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    for (const to of ['lower', 'upper'] as const) {
      const o = mapped(cp, to);
      if (o === undefined || !foldsTogether(cp, o)) continue;
      const [a, b] = [find(cp), find(o)];
      if (a !== b) parent.set(Math.max(a, b), Math.min(a, b));
    }
  }
  const members = new Map<number, number[]>();
  for (const cp of parent.keys()) {
    const root = find(cp);
    members.set(root, [...(members.get(root) ?? []), cp]);
  }
  const out = new Map<number, number[]>();
  for (const group of members.values()) {
    if (group.length < 2) continue;
    group.sort((x, y) => x - y);
    for (const cp of group) out.set(cp, group);
  }
  return out;
}

/** The runes `cp` folds to besides itself, as (?i) matches them (empty when it has no other case). */
export function foldOrbit(cp: number): readonly number[] {
  if (cp > MAX_FOLD) return [];
  orbits ??= buildOrbits();
  return (orbits.get(cp) ?? []).filter((o) => o !== cp);
}
