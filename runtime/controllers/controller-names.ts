// kube-controller-manager's --controllers: `*` turns on every controller that is on by default,
// `name` turns one on, `-name` turns one off; for each controller the first item naming it wins
// (IsControllerEnabled). Names are kube's, with the short aliases it still accepts
// (root-ca-cert-publisher for root-ca-certificate-publisher-controller). The bootstrap token
// controllers are off unless named, as in kube. The CRD naming and establishing controllers run
// inside kube-apiserver (apiextensions-apiserver), not kube-controller-manager; as this server
// is both, they are listed here too, on by default, so `-crd-naming` can turn one off.

export type ControllerName =
  | 'serviceaccount-controller'
  | 'serviceaccount-token-controller'
  | 'root-ca-certificate-publisher-controller'
  | 'ephemeral-volume-controller'
  | 'clusterrole-aggregation-controller'
  | 'bootstrap-signer-controller'
  | 'token-cleaner-controller'
  | 'garbage-collector-controller'
  | 'crd-naming-controller'
  | 'crd-establishing-controller';

const CONTROLLERS: Record<ControllerName, string> = {
  'serviceaccount-controller': 'serviceaccount',
  'serviceaccount-token-controller': 'serviceaccount-token',
  'root-ca-certificate-publisher-controller': 'root-ca-cert-publisher',
  'ephemeral-volume-controller': 'ephemeral-volume',
  'clusterrole-aggregation-controller': 'clusterrole-aggregation',
  'bootstrap-signer-controller': 'bootstrapsigner',
  'token-cleaner-controller': 'tokencleaner',
  'garbage-collector-controller': 'garbagecollector',
  'crd-naming-controller': 'crd-naming',
  'crd-establishing-controller': 'crd-establishing',
};

/** ControllersDisabledByDefault. */
const DISABLED_BY_DEFAULT: ReadonlySet<ControllerName> = new Set(['bootstrap-signer-controller', 'token-cleaner-controller']);

const BY_NAME = new Map<string, ControllerName>(
  Object.entries(CONTROLLERS).flatMap(([name, alias]) => [
    [name, name as ControllerName],
    [alias, name as ControllerName],
  ]),
);

/** The controllers `spec` turns on (default `['*']`); throws on a name kube does not know. */
export function enabledControllers(spec: readonly string[] = ['*']): Set<ControllerName> {
  const choice = new Map<ControllerName, boolean>();
  let star = false;
  for (const raw of spec) {
    const item = raw.trim();
    if (item === '*') {
      star = true;
      continue;
    }
    const disabled = item.startsWith('-');
    const name = BY_NAME.get(disabled ? item.slice(1) : item);
    if (!name) throw new Error(`${JSON.stringify(disabled ? item.slice(1) : item)} is not in the list of known controllers`);
    if (!choice.has(name)) choice.set(name, !disabled);
  }
  const all = Object.keys(CONTROLLERS) as ControllerName[];
  return new Set(all.filter((n) => choice.get(n) ?? (star && !DISABLED_BY_DEFAULT.has(n))));
}
