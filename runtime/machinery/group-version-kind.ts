// An object's group, version and kind as apimachinery reads them from its apiVersion and kind
// (schema.FromAPIVersionAndKind): an apiVersion with more than one '/' is no group version at all.

/** schema.ParseGroupVersion, with an unparseable value read as the empty group version. */
export function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0]! };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return { group: '', version: '' };
}

/** schema.GroupVersionKind's String() of an object's apiVersion and kind: `group/version, Kind=kind`. */
export function groupVersionKindString(apiVersion: string, kind: string): string {
  const { group, version } = parseGroupVersion(apiVersion);
  return `${group}/${version}, Kind=${kind}`;
}
