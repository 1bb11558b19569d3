// API lifecycle facts (kube's prerelease-lifecycle tags, generated/lifecycle.ts) and the rules
// kube-apiserver derives from them: whether a kind is deprecated or removed at a release, the
// warning text a request to a deprecated kind gets, and which versions are on by default.

/** `1.x` releases, as the spec files state them. */
export interface KindLifecycle {
  group: string;
  version: string;
  kind: string;
  /** The URL segment (plural). */
  resource: string;
  namespaced: boolean;
  introduced: string;
  deprecated?: string;
  removed?: string;
  replacement?: { group: string; version: string; kind: string };
}

/** A group version: introduced with its first kind, removed (never served again) with its last. */
export interface GroupVersionLifecycle {
  group: string;
  version: string;
  introduced: string;
  removed?: string;
}

export type Release = readonly [major: number, minor: number];

export function parseRelease(release: string): Release {
  const [major, minor] = release.split('.').map(Number);
  return [major ?? 0, minor ?? 0];
}

/** True when `release` is at or before `current`. */
export function reached(release: string | undefined, current: Release): boolean {
  if (!release) return false;
  const [major, minor] = parseRelease(release);
  return major < current[0] || (major === current[0] && minor <= current[1]);
}

const gvString = (group: string, version: string): string => (group ? `${group}/${version}` : version);

/** deprecation.WarningMessage's text: `<gv> <Kind> is deprecated in v1.X+[, unavailable in v1.Y+][; use <gv> <Kind>]`. */
export function deprecationWarning(lc: KindLifecycle): string {
  let text = `${gvString(lc.group, lc.version)} ${lc.kind} is deprecated in v${lc.deprecated}+`;
  if (lc.removed) text += `, unavailable in v${lc.removed}+`;
  if (lc.replacement) text += `; use ${gvString(lc.replacement.group, lc.replacement.version)} ${lc.replacement.kind}`;
  return text;
}

/**
 * Whether kube-apiserver enables a group version without --runtime-config: stable ones always;
 * beta ones only when introduced before 1.22 (the betas it kept on for compatibility); alpha never.
 */
export function enabledByDefault(version: string, introduced: string | undefined): boolean {
  if (/alpha/.test(version)) return false;
  if (/beta/.test(version)) return introduced !== undefined && !reached('1.22', parseRelease(introduced));
  return true;
}
