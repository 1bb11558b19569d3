// --runtime-config: which API group versions (and single resources) are served, with
// kube-apiserver's rules (k8s.io/apiserver resourceconfig.MergeAPIResourceConfigs): first the
// level switches api/all, api/ga, api/beta and api/alpha, then `<group>/<version>` pairs, then
// `<group>/<version>/<resource>` ones, each later step overriding the earlier. Keys naming a group
// this server does not have are ignored; a version this server never had, of a group it has,
// stops the start. By default stable versions are on and alpha and beta ones off, except the
// beta resources introduced before 1.22, which kube-apiserver keeps on (the lifecycle table says
// which). A removed version is still registered in kube's scheme, so naming it is accepted, and
// it stays unserved: nothing serves it.

export class RuntimeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuntimeConfigError';
  }
}

/** cliflag.ConfigurationMap: `k=v,k2,k3=v3`; a key without `=` gets the empty value. */
export function parseRuntimeConfigFlag(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const piece of value.split(',')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    if (eq < 0) out[piece.trim()] = '';
    else out[piece.slice(0, eq).trim()] = piece.slice(eq + 1).trim();
  }
  return out;
}

export interface GroupVersion {
  /** '' for the core group. */
  group: string;
  version: string;
}

export type Level = 'ga' | 'beta' | 'alpha';

export function levelOf(version: string): Level {
  if (/alpha/.test(version)) return 'alpha';
  if (/beta/.test(version)) return 'beta';
  return 'ga';
}

const LEVEL_SWITCHES: Array<[key: string, matches: (v: GroupVersion) => boolean]> = [
  ['api/all', () => true],
  ['api/ga', (v) => levelOf(v.version) === 'ga'],
  ['api/beta', (v) => levelOf(v.version) === 'beta'],
  ['api/alpha', (v) => levelOf(v.version) === 'alpha'],
];

/** Go's strconv.ParseBool, with the empty value meaning true (the spec: a missing value means true). */
function parseValue(key: string, value: string): boolean {
  if (value === '') return true;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw new RuntimeConfigError(`invalid value of ${key}: ${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
}

const gvKey = (gv: GroupVersion): string => (gv.group ? `${gv.group}/${gv.version}` : gv.version);

/** Whether a group version's resource is served. */
export type APIEnablement = (group: string, version: string, resource: string) => boolean;

/** What the lifecycle table adds to the level defaults. */
export interface LifecycleDefaults {
  /** `<group>/<version>/<resource>` of betas introduced before 1.22: on unless switched off. */
  legacyBetaResources?: string[];
  /** Group versions removed by now: accepted in the flag, never served. */
  removed?: GroupVersion[];
}

/**
 * Resolves the flag's entries against the group versions this server has. Throws a
 * RuntimeConfigError with kube-apiserver's message for a bad value or an unknown version.
 */
export function resolveRuntimeConfig(overrides: Record<string, string>, known: GroupVersion[], lifecycle: LifecycleDefaults = {}): APIEnablement {
  const versions = new Map<string, boolean>(known.map((gv) => [gvKey(gv), levelOf(gv.version) === 'ga']));
  const removed = new Set((lifecycle.removed ?? []).map(gvKey));
  const resources = new Map<string, boolean>((lifecycle.legacyBetaResources ?? []).map((r) => [r, true]));
  const clearResources = (gv: string) => {
    for (const key of [...resources.keys()]) if (key.startsWith(`${gv}/`)) resources.delete(key);
  };

  for (const [key, matches] of LEVEL_SWITCHES) {
    const value = overrides[key];
    if (value === undefined) continue;
    if (value !== 'true' && value !== 'false' && value !== '') throw new RuntimeConfigError(`invalid value ${key}=${value}`);
    for (const gv of known.filter(matches)) {
      versions.set(gvKey(gv), value !== 'false');
      clearResources(gvKey(gv));
    }
  }

  const versionPrefs: Array<[string, boolean]> = [];
  const resourcePrefs: Array<[string, boolean]> = [];
  for (const [key, value] of Object.entries(overrides)) {
    if (LEVEL_SWITCHES.some(([k]) => k === key)) continue;
    const tokens = key.split('/');
    if (tokens.length < 2 || tokens.length > 3) continue;
    // The core group's key is api/v1.
    const group = tokens[0] === 'api' ? '' : (tokens[0] as string);
    const version = tokens[1] as string;
    if (version === '' || (group !== '' && tokens[0] === '')) throw new RuntimeConfigError(`invalid key ${key}`);
    if (!known.some((gv) => gv.group === group)) continue;
    const gv = gvKey({ group, version });
    if (removed.has(gv) && !versions.has(gv)) continue;
    if (!versions.has(gv)) throw new RuntimeConfigError(`group version ${group ? `${group}/${version}` : version} that has not been registered`);
    const enabled = parseValue(key, value);
    if (tokens.length === 2) versionPrefs.push([gv, enabled]);
    else {
      const resource = tokens[2] as string;
      if (resource.toLowerCase() !== resource) {
        throw new RuntimeConfigError(`invalid key ${key}: group/version/resource and resource is always lowercase plural, not ${JSON.stringify(resource)}`);
      }
      resourcePrefs.push([`${gv}/${resource}`, enabled]);
    }
  }
  for (const [gv, enabled] of versionPrefs) {
    versions.set(gv, enabled);
    clearResources(gv);
  }
  for (const [gvr, enabled] of resourcePrefs) resources.set(gvr, enabled);

  return (group, version, resource) => {
    const gv = gvKey({ group, version });
    const plural = resource.split('/')[0] as string;
    return resources.get(`${gv}/${plural}`) ?? versions.get(gv) ?? false;
  };
}
