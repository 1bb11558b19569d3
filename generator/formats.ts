// The named formats a spec may use; each has a check with kube-apiserver's messages in
// runtime/validation/formats.ts (the generator only needs the names).

export const FORMAT_NAMES = [
  'dns1123Label',
  'dns1123Subdomain',
  'qualifiedName',
  'labelKey',
  'labelValue',
  'configMapKey',
  'kubeFinalizerName',
  'pathSegment',
  'ip',
  'quantity',
  'rfc3339',
  'ipv4',
  'ipv6',
  'canonicalIPv4',
  'canonicalIPv6',
  'ianaServiceName',
  'anyCaseQualifiedName',
  'csiDriverName',
  'endpointIP',
  'fullyQualifiedDomainName',
] as const;
