// The generated artifacts against upstream data in ../shared/upstream: protobuf field numbers
// and Go pointer/inline facts, discovery entries, storageVersionHash and printer columns.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { loadSpecs } from '../../generator/load.js';
import { buildModel } from '../../generator/normalize.js';
import { SPECIAL_SCALARS } from '../../generator/scalars.js';
import { UPSTREAM_DIR, upstreamAvailable } from '../support/upstream.js';

const ROOT = resolve(import.meta.dirname, '../..');
const UPSTREAM = UPSTREAM_DIR;
const present = upstreamAvailable();

const readJSON = <T>(path: string): T => JSON.parse(readFileSync(join(UPSTREAM, path), 'utf8')) as T;

interface UpstreamField {
  name: string;
  number: number;
  type: string;
  label: 'optional' | 'repeated';
  map?: { key: string; value: string };
  goPointer?: boolean;
  jsonInline?: boolean;
}

// storagemigration.k8s.io/v1alpha1 (served by kube-apiserver 1.33) was removed upstream before the
// snapshot in ../shared/upstream was taken, so its facts are written here, from kube 1.33's
// staging/src/k8s.io/api/storagemigration/v1alpha1/generated.proto and its discovery.
const opt = (name: string, number: number, type: string): UpstreamField => ({ name, number, type, label: 'optional' });
const SVM = 'k8s.io.api.storagemigration.v1alpha1';
const REMOVED_UPSTREAM_MESSAGES: Record<string, { fields: UpstreamField[] }> = {
  [`${SVM}.StorageVersionMigration`]: { fields: [opt('metadata', 1, 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta'), opt('spec', 2, `${SVM}.StorageVersionMigrationSpec`), opt('status', 3, `${SVM}.StorageVersionMigrationStatus`)] },
  [`${SVM}.StorageVersionMigrationList`]: { fields: [opt('metadata', 1, 'k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta'), { name: 'items', number: 2, type: `${SVM}.StorageVersionMigration`, label: 'repeated' }] },
  [`${SVM}.StorageVersionMigrationSpec`]: { fields: [opt('resource', 1, `${SVM}.GroupVersionResource`), opt('continueToken', 2, 'string')] },
  [`${SVM}.GroupVersionResource`]: { fields: [opt('group', 1, 'string'), opt('version', 2, 'string'), opt('resource', 3, 'string')] },
  [`${SVM}.StorageVersionMigrationStatus`]: { fields: [{ name: 'conditions', number: 1, type: `${SVM}.MigrationCondition`, label: 'repeated' }, opt('resourceVersion', 2, 'string')] },
  [`${SVM}.MigrationCondition`]: { fields: [opt('type', 1, 'string'), opt('status', 2, 'string'), opt('lastUpdateTime', 3, 'k8s.io.apimachinery.pkg.apis.meta.v1.Time'), opt('reason', 4, 'string'), opt('message', 5, 'string')] },
};
// authentication.k8s.io/v1 TokenRequest is only the body of serviceaccounts/token, and
// autoscaling/v1 Scale of a custom resource's scale subresource: messages the snapshot (taken from
// served kinds) does not reach; their facts are from kube 1.33's generated.proto files.
const AUTHN = 'k8s.io.api.authentication.v1';
const AUTOSCALING = 'k8s.io.api.autoscaling.v1';
const SUBRESOURCE_BODY_MESSAGES: Record<string, { fields: UpstreamField[] }> = {
  [`${AUTHN}.TokenRequest`]: { fields: [opt('metadata', 1, 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta'), opt('spec', 2, `${AUTHN}.TokenRequestSpec`), opt('status', 3, `${AUTHN}.TokenRequestStatus`)] },
  [`${AUTHN}.TokenRequestSpec`]: {
    fields: [
      { name: 'audiences', number: 1, type: 'string', label: 'repeated' },
      { ...opt('expirationSeconds', 4, 'int64'), goPointer: true },
      { ...opt('boundObjectRef', 3, `${AUTHN}.BoundObjectReference`), goPointer: true },
    ],
  },
  [`${AUTHN}.BoundObjectReference`]: { fields: [opt('kind', 1, 'string'), opt('apiVersion', 2, 'string'), opt('name', 3, 'string'), opt('uid', 4, 'string')] },
  [`${AUTHN}.TokenRequestStatus`]: { fields: [opt('token', 1, 'string'), opt('expirationTimestamp', 2, 'k8s.io.apimachinery.pkg.apis.meta.v1.Time')] },
  // The scale subresource's body (k8s.io/api/autoscaling/v1/generated.proto).
  [`${AUTOSCALING}.Scale`]: { fields: [opt('metadata', 1, 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta'), opt('spec', 2, `${AUTOSCALING}.ScaleSpec`), opt('status', 3, `${AUTOSCALING}.ScaleStatus`)] },
  [`${AUTOSCALING}.ScaleSpec`]: { fields: [opt('replicas', 1, 'int32')] },
  [`${AUTOSCALING}.ScaleStatus`]: { fields: [opt('replicas', 1, 'int32'), opt('selector', 2, 'string')] },
};
const REMOVED_UPSTREAM_DISCOVERY: Record<string, { resources: Record<string, unknown>[]; apiVersion?: string; groupVersion: string }> = {
  'apis__storagemigration.k8s.io__v1alpha1': {
    apiVersion: 'v1',
    groupVersion: 'storagemigration.k8s.io/v1alpha1',
    resources: [
      {
        name: 'storageversionmigrations',
        singularName: 'storageversionmigration',
        namespaced: false,
        kind: 'StorageVersionMigration',
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        // kube-apiserver's hash: the first 8 bytes of sha256("<group>/<version>/<kind>") of the storage version, base64.
        storageVersionHash: createHash('sha256').update('storagemigration.k8s.io/v1alpha1/StorageVersionMigration').digest().subarray(0, 8).toString('base64'),
      },
      { name: 'storageversionmigrations/status', singularName: '', namespaced: false, kind: 'StorageVersionMigration', verbs: ['get', 'patch', 'update'] },
    ],
  },
  // Not in the snapshot folder: kube-apiserver 1.33's answer for CRDs, whose objects are stored as v1beta1.
  'apis__apiextensions.k8s.io__v1': {
    apiVersion: 'v1',
    groupVersion: 'apiextensions.k8s.io/v1',
    resources: [
      {
        name: 'customresourcedefinitions',
        singularName: 'customresourcedefinition',
        namespaced: false,
        kind: 'CustomResourceDefinition',
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        shortNames: ['crd', 'crds'],
        categories: ['api-extensions'],
        storageVersionHash: 'jfWCUB31mvA=',
      },
      { name: 'customresourcedefinitions/status', singularName: '', namespaced: false, kind: 'CustomResourceDefinition', verbs: ['get', 'patch', 'update'] },
    ],
  },
};

// ComponentStatus is not among the kinds the snapshot was taken for, so its facts are written here:
// messages from kubernetes/api v0.33.0 core/v1/generated.proto, columns from kube 1.33's
// pkg/printers/internalversion/printers.go (componentStatusColumnDefinitions).
const CORE = 'k8s.io.api.core.v1';
const rep = (name: string, number: number, type: string): UpstreamField => ({ name, number, type, label: 'repeated' });
const COMPONENT_STATUS_MESSAGES: Record<string, { fields: UpstreamField[] }> = {
  [`${CORE}.ComponentCondition`]: { fields: [opt('type', 1, 'string'), opt('status', 2, 'string'), opt('message', 3, 'string'), opt('error', 4, 'string')] },
  [`${CORE}.ComponentStatus`]: { fields: [opt('metadata', 1, 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta'), rep('conditions', 2, `${CORE}.ComponentCondition`)] },
  [`${CORE}.ComponentStatusList`]: { fields: [opt('metadata', 1, 'k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta'), rep('items', 2, `${CORE}.ComponentStatus`)] },
};
interface PrinterColumnFact {
  name: string;
  type: string;
  format?: string;
  priority: number;
  description: string;
}
const COMPONENT_STATUS_COLUMNS: PrinterColumnFact[] = [
  { name: 'Name', type: 'string', format: 'name', priority: 0, description: 'Object name (metadata.name).' },
  { name: 'Status', type: 'string', priority: 0, description: 'Status of the component conditions' },
  { name: 'Message', type: 'string', priority: 0, description: 'Message of the component conditions' },
  { name: 'Error', type: 'string', priority: 0, description: 'Error of the component conditions' },
];

describe.runIf(present)('upstream facts', () => {
  const protoFields = present ? { ...readJSON<Record<string, { fields: UpstreamField[] }>>('proto-fields.json'), ...REMOVED_UPSTREAM_MESSAGES, ...SUBRESOURCE_BODY_MESSAGES, ...COMPONENT_STATUS_MESSAGES } : {};
  const model = buildModel(loadSpecs(join(ROOT, 'api-specs'), ROOT));

  it('every protobuf tag of every spec matches proto-fields.json (name, number, repeated/map, goPointer, jsonInline)', () => {
    const problems: string[] = [];
    let checked = 0;
    // The snapshot holds the messages reachable from the kinds it was taken for; a package it has
    // no message of at all (policy, for the pods/eviction body) cannot be checked against it.
    const packages = new Set(Object.keys(protoFields).map((name) => name.slice(0, name.lastIndexOf('.'))));
    for (const t of model.types.values()) {
      const upstream = protoFields[t.protoName];
      if (!upstream && !packages.has(t.protoName.slice(0, t.protoName.lastIndexOf('.')))) continue;
      if (!upstream) {
        problems.push(`${t.protoName}: no such upstream message`);
        continue;
      }
      const ours = t.fields.filter((f) => f.tag !== undefined);
      for (const u of upstream.fields) {
        const f = ours.find((x) => x.protoName === u.name);
        if (!f) {
          problems.push(`${t.protoName}.${u.name}: missing from the spec`);
          continue;
        }
        checked++;
        // A list carried in a wrapper message (Verbs) is a single field on the wire; a map of
        // wrapped lists (ExtraValue) is still a map.
        const repeated = f.type.kind === 'map' || (!f.protoMessage && f.type.kind === 'list');
        const facts = {
          number: f.tag,
          repeated,
          map: f.type.kind === 'map',
          goPointer: f.goPointer,
          jsonInline: f.jsonInline,
        };
        const want = { number: u.number, repeated: u.label === 'repeated', map: u.type === 'map', goPointer: !!u.goPointer, jsonInline: !!u.jsonInline };
        if (JSON.stringify(facts) !== JSON.stringify(want)) problems.push(`${t.protoName}.${u.name}: ours ${JSON.stringify(facts)}, upstream ${JSON.stringify(want)}`);
      }
      for (const f of ours) if (!upstream.fields.some((u) => u.name === f.protoName)) problems.push(`${t.protoName}.${f.protoName}: not upstream`);
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });

  it('special scalar messages keep the upstream wire layout', () => {
    for (const s of Object.values(SPECIAL_SCALARS)) {
      const upstream = s && protoFields[s.protoName];
      if (!s || !upstream) continue;
      expect(Object.fromEntries(upstream.fields.map((u) => [u.name, u.number])), s.protoName).toEqual(
        Object.fromEntries(Object.entries(s.protoFields).map(([k, v]) => [k, v.id])),
      );
    }
  });

  it('the descriptors decode the upstream ConfigMap, Secret and Namespace fixtures', () => {
    const root = protobuf.Root.fromJSON(JSON.parse(readFileSync(join(ROOT, 'generated/protobuf/descriptors.json'), 'utf8')));
    const Unknown = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
    for (const kind of ['ConfigMap', 'Secret', 'Namespace']) {
      const pb = readFileSync(join(UPSTREAM, `testdata/core.v1.${kind}.pb`));
      expect(pb.subarray(0, 4).toString('latin1')).toBe('k8s\0');
      const envelope = Unknown.decode(pb.subarray(4)) as unknown as { typeMeta: { kind: string }; raw: Uint8Array };
      expect(envelope.typeMeta.kind).toBe(kind);
      const obj = root.lookupType(`k8s.io.api.core.v1.${kind}`).toObject(root.lookupType(`k8s.io.api.core.v1.${kind}`).decode(envelope.raw), { bytes: String }) as {
        metadata: { name: string; labels: Record<string, string> };
      };
      const json = readJSON<{ metadata: { name: string; labels: Record<string, string> } }>(`testdata/core.v1.${kind}.json`);
      expect(obj.metadata.name).toBe(json.metadata.name);
      expect(obj.metadata.labels).toEqual(json.metadata.labels);
    }
  });

  it('discovery of the core group keeps its shape: no apiVersion, the core resources', () => {
    const ours = JSON.parse(readFileSync(join(ROOT, 'generated/discovery/api__v1.json'), 'utf8')) as { resources: Record<string, unknown>[]; kind: string; apiVersion?: string };
    expect(ours.kind).toBe('APIResourceList');
    expect(ours.apiVersion).toBeUndefined();
    expect(ours.resources.map((r) => r.name)).toEqual(expect.arrayContaining(['configmaps', 'namespaces', 'namespaces/finalize', 'namespaces/status', 'secrets']));
  });

  // Every served group version's APIResourceList against the upstream snapshot of the same path.
  const DISCOVERY_KEYS = ['name', 'singularName', 'namespaced', 'kind', 'verbs', 'shortNames', 'categories', 'storageVersionHash'];
  const pick = (r: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(DISCOVERY_KEYS.filter((k) => k in r).map((k) => [k, r[k]]));
  const discoveryFile = (r: { group: string; version: string }): string => (r.group ? `apis__${r.group}__${r.version}` : 'api__v1');
  const served = [...new Set(resources.map(discoveryFile))].sort();

  it.each(served)('discovery entries of %s equal upstream', (file) => {
    type ResourceList = { resources: Record<string, unknown>[]; apiVersion?: string; groupVersion: string };
    const upstream = REMOVED_UPSTREAM_DISCOVERY[file] ?? readJSON<ResourceList>(`discovery/${file}.json`);
    const ours = JSON.parse(readFileSync(join(ROOT, `generated/discovery/${file}.json`), 'utf8')) as ResourceList;
    expect(ours.groupVersion).toBe(upstream.groupVersion);
    expect(ours.apiVersion).toBe(upstream.apiVersion);
    expect(ours.resources.length).toBeGreaterThan(0);
    for (const r of ours.resources) {
      const u = upstream.resources.find((x) => x.name === r.name);
      expect(u, `${file}: ${String(r.name)}`).toBeDefined();
      expect(pick(r), `${file}: ${String(r.name)}`).toEqual(pick(u as Record<string, unknown>));
    }
  });

  it('storageVersionHash in the registry equals upstream discovery for every served resource', () => {
    for (const r of resources) {
      const file = discoveryFile(r);
      const upstream = REMOVED_UPSTREAM_DISCOVERY[file] ?? readJSON<{ resources: Record<string, unknown>[] }>(`discovery/${file}.json`);
      // A virtual kind stores nothing and has no hash ('' here, absent upstream).
      expect(r.storageVersionHash || undefined, `${r.group}/${r.plural}`).toBe(upstream.resources.find((u) => u.name === r.plural)?.storageVersionHash);
    }
  });

  it('printer columns equal printer-columns.json (name, type, format, priority, description)', () => {
    const upstream: Record<string, PrinterColumnFact[]> = { ...readJSON<Record<string, PrinterColumnFact[]>>('printer-columns.json'), componentstatuses: COMPONENT_STATUS_COLUMNS };
    for (const r of resources) {
      const key = r.group ? `${r.group}/${r.plural}` : r.plural;
      const ours = r.printerColumns.map(({ name, type, format, priority, description }) => ({ name, type, ...(format ? { format } : {}), priority, description }));
      // Kinds without a printer of their own get the generic table (Name, Created At).
      expect(ours, key).toEqual(upstream[key] ?? upstream._default);
    }
  });
});
