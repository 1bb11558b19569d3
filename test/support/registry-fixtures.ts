// Hand-written definitions for registry tests: the shapes generated/registry.ts exports, with
// small validators that check real rules (name format, data value types) in kube-apiserver's words.

import type { StatusCause } from '../../runtime/errors/status-error.js';
import type { ObjectValidator, ResourceDefinition } from '../../runtime/registry/definition.js';
import { MemoryStorage } from '../../runtime/storage/memory.js';
import { SqliteStorage } from '../../runtime/storage/sqlite.js';
import type { Storage } from '../../runtime/storage/interface.js';

const DNS1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function metaCauses(obj: Record<string, unknown>): StatusCause[] {
  const meta = (obj.metadata ?? {}) as Record<string, unknown>;
  const name = meta.name as string | undefined;
  if (!name) return [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }];
  if (!DNS1123.test(name)) {
    return [{ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(name)}: a lowercase RFC 1123 subdomain`, field: 'metadata.name' }];
  }
  return [];
}

function validator(extra: (obj: Record<string, unknown>) => StatusCause[] = () => [], defaults: (obj: Record<string, unknown>) => void = () => {}): ObjectValidator {
  return {
    applyDefaults: defaults,
    validate: (obj) => [...metaCauses(obj), ...extra(obj)],
    validateFields: (obj) => extra(obj),
    arrangeElementCauses: (_obj, causes) => causes,
    elementOrder: () => undefined,
    validateUpdate: (obj) => [...metaCauses(obj), ...extra(obj)],
  };
}

function stringMapCauses(field: string) {
  return (obj: Record<string, unknown>): StatusCause[] => {
    const map = obj[field];
    if (map === undefined) return [];
    if (typeof map !== 'object' || map === null) return [{ reason: 'FieldValueTypeInvalid', message: 'Invalid value: must be an object', field }];
    return Object.entries(map)
      .filter(([, v]) => typeof v !== 'string')
      .map(([k]) => ({ reason: 'FieldValueTypeInvalid', message: 'Invalid value: must be a string', field: `${field}[${k}]` }));
  };
}

const base = {
  shortNames: [],
  categories: [],
  stability: 'stable' as const,
  printerColumns: [],
  nameFormat: 'dns1123Subdomain' as const,
  storageVersionHash: 'test',
  tracksGeneration: false,
  subresources: [],
  verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'] as ResourceDefinition['verbs'],
};

export const configMaps: ResourceDefinition = {
  ...base,
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  listKind: 'ConfigMapList',
  plural: 'configmaps',
  singular: 'configmap',
  namespaced: true,
  protobufType: 'k8s.io.api.core.v1.ConfigMap',
  protobufListType: 'k8s.io.api.core.v1.ConfigMapList',
  openAPIName: 'io.k8s.api.core.v1.ConfigMap',
  storagePrefix: 'configmaps',
  validator: validator(stringMapCauses('data')),
};

export const secrets: ResourceDefinition = {
  ...configMaps,
  kind: 'Secret',
  listKind: 'SecretList',
  plural: 'secrets',
  singular: 'secret',
  protobufType: 'k8s.io.api.core.v1.Secret',
  protobufListType: 'k8s.io.api.core.v1.SecretList',
  openAPIName: 'io.k8s.api.core.v1.Secret',
  storagePrefix: 'secrets',
  strategy: 'secret',
  validator: validator(stringMapCauses('data'), (obj) => {
    if (obj.type === undefined) obj.type = 'Opaque';
  }),
};

export const namespaces: ResourceDefinition = {
  ...base,
  group: '',
  version: 'v1',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  plural: 'namespaces',
  singular: 'namespace',
  namespaced: false,
  verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  subresources: [
    { name: 'status', kind: 'Namespace', verbs: ['get', 'update', 'patch'] },
    { name: 'finalize', kind: 'Namespace', verbs: ['update'] },
  ],
  protobufType: 'k8s.io.api.core.v1.Namespace',
  protobufListType: 'k8s.io.api.core.v1.NamespaceList',
  openAPIName: 'io.k8s.api.core.v1.Namespace',
  storagePrefix: 'namespaces',
  strategy: 'namespace',
  validator: validator(),
};

/** A cluster-scoped kind with a spec, a status subresource and generation tracking. */
export const widgets: ResourceDefinition = {
  ...base,
  group: 'example.k8s.io',
  version: 'v1',
  kind: 'Widget',
  listKind: 'WidgetList',
  plural: 'widgets',
  singular: 'widget',
  namespaced: false,
  tracksGeneration: true,
  subresources: [{ name: 'status', kind: 'Widget', verbs: ['get', 'update', 'patch'] }],
  verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  protobufType: 'k8s.io.api.example.v1.Widget',
  protobufListType: 'k8s.io.api.example.v1.WidgetList',
  openAPIName: 'io.k8s.api.example.v1.Widget',
  storagePrefix: 'example.k8s.io/widgets',
  validator: validator((obj) => {
    const spec = obj.spec as Record<string, unknown> | undefined;
    return spec && spec.size !== undefined && typeof spec.size !== 'number'
      ? [{ reason: 'FieldValueTypeInvalid', message: 'Invalid value: must be an integer', field: 'spec.size' }]
      : [];
  }, (obj) => {
    const spec = obj.spec as Record<string, unknown> | undefined;
    if (spec && spec.size === undefined) spec.size = 1;
  }),
};

export const definitions = [configMaps, secrets, namespaces, widgets];

export const backends: [string, () => Storage][] = [
  ['memory', () => new MemoryStorage()],
  ['sqlite', () => new SqliteStorage(':memory:')],
];
