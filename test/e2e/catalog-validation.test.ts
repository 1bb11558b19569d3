// Validation as a client meets it, for every stored kind of the catalog: the catalog's sample
// (test/e2e/catalog/*.yaml) is accepted with 201, and the sample broken by one rule is refused
// with 422 Invalid, the kind and group kube-apiserver names in the details, and the causes (field
// and reason) in kube's order. The table tests beside each kind's rules check every rule's
// message; this file checks that each kind's refusals reach the client as kube's Status.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { resources } from '../../generated/registry.js';
import { useMemoryServer } from '../support/memory-server.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- samples of every kind
const CATALOG = join(import.meta.dirname, 'catalog');

const api = useMemoryServer({
  featureGates: 'DynamicResourceAllocation=true,StorageVersionMigrator=true',
  runtimeConfig: 'resource.k8s.io/v1beta2=true,storage.k8s.io/v1beta1=true,storagemigration.k8s.io/v1alpha1=true',
});

/** One broken rule per sample, and the causes kube-apiserver reports for it. */
const BROKEN: Record<string, { rule: string; mutate: (o: Obj) => void; causes: Array<[field: string, reason: string]>; detailsGroup?: string }> = {
  'clusterrole.yaml': { rule: 'a rule needs verbs', mutate: (o) => (o.rules = [{ apiGroups: [''], resources: ['pods'], verbs: [] }]), causes: [['rules[0].verbs', 'FieldValueRequired']] },
  'clusterrolebinding.yaml': { rule: 'roleRef names only a ClusterRole', mutate: (o) => (o.roleRef.kind = 'Role'), causes: [['roleRef.kind', 'FieldValueNotSupported']] },
  'configmap.yaml': { rule: 'data keys are config map keys', mutate: (o) => (o.data = { 'a b': 'x' }), causes: [['data[a b]', 'FieldValueInvalid']] },
  'csidriver.yaml': { rule: 'the driver name is at most 63 characters', mutate: (o) => (o.metadata.name = 'a'.repeat(64)), causes: [['metadata.name', 'FieldValueTooLong']] },
  'csinode.yaml': { rule: 'topology keys are qualified names', mutate: (o) => (o.spec.drivers[0].topologyKeys = ['bad key!']), causes: [['spec.drivers[0]', 'FieldValueInvalid']] },
  'csistoragecapacity.yaml': { rule: 'storageClassName is a DNS subdomain', mutate: (o) => (o.storageClassName = 'Bad_Class'), causes: [['storageClassName', 'FieldValueInvalid']] },
  'endpoints.yaml': { rule: 'an address is a valid IP', mutate: (o) => (o.subsets[0].addresses[0].ip = '10.0.0.300'), causes: [['subsets[0].addresses[0].ip', 'FieldValueInvalid']] },
  'endpointslice.yaml': { rule: 'addressType is IPv4, IPv6 or FQDN', mutate: (o) => (o.addressType = 'IPv5'), causes: [['addressType', 'FieldValueNotSupported']] },
  // Both Event views share core's internal kind, so kube-apiserver names it without a group.
  'event.events.k8s.io.yaml': { rule: 'type is Normal or Warning', mutate: (o) => (o.type = 'Bogus'), causes: [['type', 'FieldValueInvalid']], detailsGroup: '' },
  // Through core/v1 only a new-style event (one with an eventTime) is checked beyond its metadata,
  // and it names the controller reportingComponent; type is left alone there.
  'event.yaml': {
    rule: 'a new-style event names its reporter and action',
    mutate: (o) => Object.assign(o, { type: 'Bogus', eventTime: '2024-01-02T03:04:05.000000Z' }),
    // The empty controller name is also checked as a qualified name, which says two things.
    causes: [
      ['reportingComponent', 'FieldValueRequired'],
      ['reportingComponent', 'FieldValueInvalid'],
      ['reportingComponent', 'FieldValueInvalid'],
      ['reportingInstance', 'FieldValueRequired'],
      ['action', 'FieldValueRequired'],
    ],
  },
  // IsQualifiedName of "" says two things (empty, and not matching), each one cause.
  'limitrange.yaml': { rule: 'a limit type is a qualified name', mutate: (o) => (o.spec.limits[0].type = ''), causes: [['spec.limits[0].type', 'FieldValueInvalid'], ['spec.limits[0].type', 'FieldValueInvalid']] },
  'namespace.yaml': { rule: 'the name is a DNS label', mutate: (o) => (o.metadata.name = 'Bad_Name'), causes: [['metadata.name', 'FieldValueInvalid']] },
  'persistentvolume.yaml': { rule: 'capacity holds storage', mutate: (o) => delete o.spec.capacity, causes: [['spec.capacity', 'FieldValueRequired'], ['spec.capacity', 'FieldValueNotSupported']] },
  'persistentvolumeclaim.yaml': { rule: 'a claim names its access modes', mutate: (o) => (o.spec.accessModes = []), causes: [['spec.accessModes', 'FieldValueRequired']] },
  // A faulty volume is not a name the mounts may use, so each mount is NotFound too.
  'pod.yaml': {
    rule: 'a volume has exactly one source',
    mutate: (o) => (o.spec.volumes = [{ name: 'v', emptyDir: {}, hostPath: { path: '/x' } }]),
    causes: [['spec.volumes[0].hostPath', 'FieldValueForbidden'], ...[0, 1, 2].map((i): [string, string] => [`spec.containers[0].volumeMounts[${i}].name`, 'FieldValueNotFound'])],
  },
  'resourceslice.yaml': { rule: 'resourceSliceCount is above zero', mutate: (o) => (o.spec.pool.resourceSliceCount = 0), causes: [['spec.pool.resourceSliceCount', 'FieldValueInvalid']] },
  'role.yaml': { rule: 'a rule needs verbs', mutate: (o) => (o.rules = [{ apiGroups: [''], resources: ['pods'], verbs: [] }]), causes: [['rules[0].verbs', 'FieldValueRequired']] },
  'rolebinding.yaml': { rule: 'subjects are users, groups or service accounts', mutate: (o) => (o.subjects = [{ kind: 'Robot', name: 'r' }]), causes: [['subjects[0].kind', 'FieldValueNotSupported']] },
  'secret.bootstrap-token.yaml': { rule: 'token-id is six of [a-z0-9]', mutate: (o) => (o.stringData = { ...o.stringData, 'token-id': 'TOOLONGID' }), causes: [['data[token-id]', 'FieldValueInvalid']] },
  'secret.yaml': { rule: 'data keys are config map keys', mutate: (o) => (o.data = { 'a b': 'eA==' }), causes: [['data[a b]', 'FieldValueInvalid']] },
  'serviceaccount.yaml': { rule: 'the name is a DNS subdomain', mutate: (o) => (o.metadata.name = 'Bad_Name'), causes: [['metadata.name', 'FieldValueInvalid']] },
  'storageclass.yaml': { rule: 'a class names its provisioner', mutate: (o) => delete o.provisioner, causes: [['provisioner', 'FieldValueRequired']] },
  'storageversionmigration.yaml': { rule: 'the resource to migrate is named', mutate: (o) => (o.spec.resource.resource = ''), causes: [['spec.resource.resource', 'FieldValueRequired']] },
  'volumeattachment.yaml': { rule: 'an attachment names its attacher', mutate: (o) => delete o.spec.attacher, causes: [['spec.attacher', 'FieldValueRequired']] },
  'volumeattributesclass.yaml': { rule: 'a class names its driver', mutate: (o) => delete o.driverName, causes: [['driverName', 'FieldValueRequired']] },
};

interface Sample {
  file: string;
  obj: Obj;
  collection: string;
  kind: string;
  group: string;
}

function samples(): Sample[] {
  const out: Sample[] = [];
  for (const file of readdirSync(CATALOG).filter((f) => f.endsWith('.yaml')).sort()) {
    const obj = parse(readFileSync(join(CATALOG, file), 'utf8')) as Obj;
    const [group, version] = obj.apiVersion.includes('/') ? obj.apiVersion.split('/') : ['', obj.apiVersion];
    const def = resources.find((r) => r.group === group && r.version === version && r.kind === obj.kind)!;
    if (def.virtual) continue;
    const base = group ? `/apis/${group}/${version}` : '/api/v1';
    const collection = `${base}${def.namespaced ? `/namespaces/${obj.metadata.namespace ?? 'default'}` : ''}/${def.plural}`;
    out.push({ file, obj, collection, kind: obj.kind, group });
  }
  return out;
}

const all = samples();

describe('every stored kind of the catalog, over HTTPS', () => {
  it('has one broken rule per sample', () => {
    expect(Object.keys(BROKEN).sort()).toEqual(all.map((s) => s.file));
  });

  it.each(all)('$file: the sample is created (dry run)', async ({ obj, collection }) => {
    const res = await api.send('POST', `${collection}?dryRun=All`, obj);
    expect(res.status).toBe(201);
  });

  it.each(all)('$file: a broken sample is 422 Invalid with kube\'s causes', async ({ file, obj, collection, kind, group }) => {
    const broken = structuredClone(obj);
    BROKEN[file]!.mutate(broken);
    const res = await api.send<{ code: number; reason: string; details: { kind: string; group?: string; causes: { field: string; reason: string }[] } }>('POST', collection, broken);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 422, reason: 'Invalid', details: { kind } });
    expect(res.body.details.group).toBe((BROKEN[file]!.detailsGroup ?? group) || undefined);
    expect(res.body.details.causes.map((c) => [c.field, c.reason])).toEqual(BROKEN[file]!.causes);
  });
});
