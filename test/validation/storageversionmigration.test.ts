// storagemigration.k8s.io/v1alpha1 StorageVersionMigration with kube-apiserver 1.33's causes
// (pkg/apis/storagemigration/validation): spec.resource's resource and version required, group,
// version and resource immutable (reported at bare paths, as upstream does), and the status
// subresource's rules. Upstream has no v1alpha1 fixture any more, so the object's round trip
// through JSON, YAML and protobuf is checked here, with hand-encoded bytes for two messages.
// Over HTTPS: served only with the StorageVersionMigrator gate, status through its subresource,
// printer columns as kube's printer.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { resources } from '../../generated/registry.js';
import { decodeObject, encodeMessage, encodeObject, loadDescriptorRoot, messageNameResolver } from '../../runtime/api/protobuf/index.js';
import { generatedPath } from '../../runtime/generated-files.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import type { StartServerOptions } from '../../runtime/server/options.js';
import { strategiesFor } from '../../runtime/registry/strategies/index.js';
import { call, kubeconfigCredentials } from '../support/https-client.js';
import { SUBDOMAIN_MSG } from '../support/validator-kinds.js';

type Obj = Record<string, unknown>;
type Cause = { reason: string; field: string; message: string };
const def = resources.find((r) => r.kind === 'StorageVersionMigration')!;
const strategies = strategiesFor(def);
const API = 'storagemigration.k8s.io/v1alpha1';

const svm = (resource: Obj = { group: 'apps', version: 'v1', resource: 'deployments' }, name = 'migrate-deployments'): Obj => ({ apiVersion: API, kind: 'StorageVersionMigration', metadata: { name }, spec: { resource } });
const stored = (obj: Obj, status?: Obj): Obj => ({ ...obj, metadata: { ...(obj.metadata as Obj), resourceVersion: '3' }, ...(status ? { status } : {}) });
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const REASON_MSG =
  "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')";
const cond = (type: string, status = 'True', extra: Obj = {}): Obj => ({ type, status, lastUpdateTime: '2024-01-02T03:04:05Z', reason: 'Observed', ...extra });

describe('StorageVersionMigration validation', () => {
  it('is alpha, gated, cluster-scoped, with a status subresource and kube printer columns', () => {
    expect(def).toMatchObject({ group: 'storagemigration.k8s.io', version: 'v1alpha1', stability: 'alpha', featureGate: 'StorageVersionMigrator', namespaced: false });
    expect(def.subresources).toEqual([{ name: 'status', kind: 'StorageVersionMigration', verbs: ['get', 'patch', 'update'] }]);
    expect(def.printerColumns.map((c) => c.name)).toEqual(['Name', 'Resource']);
  });

  it.each<[string, Obj]>([
    ['a migration of apps/v1 deployments', svm()],
    ['a core resource (empty group) with a continue token', { ...svm({ version: 'v1', resource: 'secrets' }), spec: { resource: { version: 'v1', resource: 'secrets' }, continueToken: 'abc' } }],
  ])('accepts %s', (_name, obj) => {
    expect(def.validator.validate(obj)).toEqual([]);
  });

  it.each<[string, Obj, Cause[]]>([
    ['no spec at all', { apiVersion: API, kind: 'StorageVersionMigration', metadata: { name: 'm' } }, [
      { reason: 'FieldValueRequired', field: 'spec.resource.resource', message: 'Required value: resource is required' },
      { reason: 'FieldValueRequired', field: 'spec.resource.version', message: 'Required value: version is required' },
    ]],
    ['an empty version', svm({ group: 'apps', version: '', resource: 'deployments' }), [{ reason: 'FieldValueRequired', field: 'spec.resource.version', message: 'Required value: version is required' }]],
    ['a bad name', svm(undefined, 'Bad_Name'), [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: "Bad_Name": ${SUBDOMAIN_MSG}` }]],
  ])('rejects %s', (_name, obj, causes) => {
    expect(def.validator.validate(obj)).toEqual(causes);
  });

  it('keeps group, version and resource immutable, reported at bare paths', () => {
    const old = stored(svm());
    expect(def.validator.validateUpdate(stored(svm({ group: 'apps', version: 'v1', resource: 'deployments' })), old)).toEqual([]);
    expect(def.validator.validateUpdate(stored(svm({ group: 'batch', version: 'v2', resource: 'jobs' })), old)).toEqual([
      { reason: 'FieldValueInvalid', field: 'group', message: 'Invalid value: "batch": field is immutable' },
      { reason: 'FieldValueInvalid', field: 'version', message: 'Invalid value: "v2": field is immutable' },
      { reason: 'FieldValueInvalid', field: 'resource', message: 'Invalid value: "jobs": field is immutable' },
    ]);
  });

  it('checks the object as on create before the update-only rules (ValidateStorageVersionMigrationUpdate order)', () => {
    expect(def.validator.validateUpdate(stored(svm({ group: 'apps', version: '', resource: 'deployments' })), stored(svm()))).toEqual([
      { reason: 'FieldValueRequired', field: 'spec.resource.version', message: 'Required value: version is required' },
      { reason: 'FieldValueInvalid', field: 'version', message: 'Invalid value: "": field is immutable' },
    ]);
  });

  it('takes no update without metadata.resourceVersion, on either endpoint', () => {
    expect(strategies.main.allowUnconditionalUpdate()).toBe(false);
    expect(strategies.subresources.status.allowUnconditionalUpdate()).toBe(false);
  });

  it('drops status on create (leaving the empty struct Go always writes) and keeps the stored status on a main update', () => {
    const created = { ...svm(), status: { resourceVersion: '9' } };
    strategies.main.prepareForCreate(created);
    expect(created.status).toEqual({});
    const old = stored(svm(), { resourceVersion: '9' });
    const next = stored(svm(), { resourceVersion: '10' });
    strategies.main.prepareForUpdate(next, old);
    expect(next.status).toEqual({ resourceVersion: '9' });
  });

  describe('status subresource', () => {
    const status = strategies.subresources.status;
    const update = (next: Obj, oldStatus: Obj = {}) => {
      const old = stored(svm(), oldStatus);
      const obj = stored(svm({ group: 'changed', version: 'v9', resource: 'x' }), next);
      status.prepareForUpdate(obj, old);
      return status.validateUpdate(obj, old);
    };

    it('keeps the spec and accepts a valid status', () => {
      const old = stored(svm());
      const obj = stored(svm({ group: 'other', version: 'v1', resource: 'x' }), { resourceVersion: '42', conditions: [cond('Running')] });
      status.prepareForUpdate(obj, old);
      expect(obj.spec).toEqual(old.spec);
      expect(status.validateUpdate(obj, old)).toEqual([]);
      expect(update({ resourceVersion: '42', conditions: [cond('Running', 'False'), cond('Succeeded')] }, { resourceVersion: '42' })).toEqual([]);
    });

    it('takes labels, annotations, finalizers, ownerReferences and generation from the stored object (ResetObjectMetaForStatus)', () => {
      const old = { ...stored(svm()), metadata: { name: 'migrate-deployments', resourceVersion: '3', labels: { a: 'old' }, generation: 1 } };
      const obj = stored(svm(), { resourceVersion: '42' });
      Object.assign(obj.metadata as Obj, { labels: { a: 'new' }, annotations: { b: 'x' }, finalizers: ['example.com/f'], ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u' }], generation: 5 });
      status.prepareForUpdate(obj, old);
      expect(obj.metadata).toEqual({ name: 'migrate-deployments', resourceVersion: '3', labels: { a: 'old' }, generation: 1 });
      expect(obj.status).toEqual({ resourceVersion: '42' });
    });

    it.each<[string, Obj, Obj, Cause[]]>([
      ['a resourceVersion that is not a number', { resourceVersion: 'abc' }, {}, [
        { reason: 'FieldValueInvalid', field: 'status.resourceVersion', message: 'Invalid value: "abc": failed to parse resource version "abc": strconv.ParseInt: parsing "abc": invalid syntax' },
      ]],
      ['a negative resourceVersion', { resourceVersion: '-1' }, {}, [{ reason: 'FieldValueInvalid', field: 'status.resourceVersion', message: 'Invalid value: -1: must be greater than or equal to 0' }]],
      ['a changed resourceVersion', { resourceVersion: '8' }, { resourceVersion: '7' }, [{ reason: 'FieldValueInvalid', field: 'status.resourceVersion', message: 'Invalid value: "8": cannot be updated' }]],
      ['a condition without status, time or reason', { conditions: [{ type: 'Running' }] }, {}, [
        { reason: 'FieldValueNotSupported', field: 'status.conditions[0].status', message: 'Unsupported value: "": supported values: "False", "True", "Unknown"' },
        { reason: 'FieldValueRequired', field: 'status.conditions[0].lastTransitionTime', message: 'Required value' },
        { reason: 'FieldValueRequired', field: 'status.conditions[0].reason', message: 'Required value' },
      ]],
      ['a repeated condition type and a bad reason', { conditions: [cond('Running', 'False'), cond('Running', 'False', { reason: 'not ok' })] }, {}, [
        { reason: 'FieldValueDuplicate', field: 'status.conditions[1].type', message: 'Duplicate value: "Running"' },
        {
          reason: 'FieldValueInvalid',
          field: 'status.conditions[1].reason',
          message: `Invalid value: "not ok": ${REASON_MSG}`,
        },
      ]],
      // A null item is a zero-valued condition, as Go decodes it, and keeps its index.
      ['a null condition before a bad one', { conditions: [null, cond('Running', 'False', { reason: 'not ok' })] }, {}, [
        { reason: 'FieldValueTypeInvalid', field: 'status.conditions[0]', message: 'Invalid value: "null": must be of type object' },
        { reason: 'FieldValueInvalid', field: 'status.conditions[0].type', message: 'Invalid value: "": name part must be non-empty' },
        { reason: 'FieldValueInvalid', field: 'status.conditions[0].type', message: `Invalid value: "": ${NAME_PART_MSG}` },
        { reason: 'FieldValueNotSupported', field: 'status.conditions[0].status', message: 'Unsupported value: "": supported values: "False", "True", "Unknown"' },
        { reason: 'FieldValueRequired', field: 'status.conditions[0].lastTransitionTime', message: 'Required value' },
        { reason: 'FieldValueRequired', field: 'status.conditions[0].reason', message: 'Required value' },
        { reason: 'FieldValueInvalid', field: 'status.conditions[1].reason', message: `Invalid value: "not ok": ${REASON_MSG}` },
      ]],
      ['Succeeded and Failed both True', { conditions: [cond('Succeeded'), cond('Failed')] }, {}, [
        {
          reason: 'FieldValueInvalid',
          field: 'status.conditions',
          message: 'Invalid value: [{"Type":"Succeeded","Status":"True","LastUpdateTime":"2024-01-02T03:04:05Z","Reason":"Observed","Message":""},{"Type":"Failed","Status":"True","LastUpdateTime":"2024-01-02T03:04:05Z","Reason":"Observed","Message":""}]: Both success and failed conditions cannot be true at the same time',
        },
      ]],
      ['Running True beside Failed', { conditions: [cond('Running'), cond('Failed')] }, {}, [
        {
          reason: 'FieldValueInvalid',
          field: 'status.conditions',
          message: 'Invalid value: [{"Type":"Running","Status":"True","LastUpdateTime":"2024-01-02T03:04:05Z","Reason":"Observed","Message":""},{"Type":"Failed","Status":"True","LastUpdateTime":"2024-01-02T03:04:05Z","Reason":"Observed","Message":""}]: Running condition cannot be true when failed condition is true',
        },
      ]],
      ['Succeeded going back to False', { conditions: [cond('Succeeded', 'False')] }, { conditions: [cond('Succeeded')] }, [
        {
          reason: 'FieldValueInvalid',
          field: 'status.conditions',
          message: 'Invalid value: [{"Type":"Succeeded","Status":"False","LastUpdateTime":"2024-01-02T03:04:05Z","Reason":"Observed","Message":""}]: Success condition cannot be set to false once it is true',
        },
      ]],
    ])('rejects %s', (_name, next, oldStatus, causes) => {
      expect(update(next, oldStatus)).toEqual(causes);
    });
  });
});

describe('StorageVersionMigration wire formats', () => {
  const root = loadDescriptorRoot(generatedPath('protobuf/descriptors.json'));
  const full: Obj = {
    kind: 'StorageVersionMigration',
    apiVersion: API,
    metadata: { name: 'migrate-deployments', uid: 'u-1', resourceVersion: '5', creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: { resource: { group: 'apps', version: 'v1', resource: 'deployments' }, continueToken: 'next-chunk' },
    status: { conditions: [{ type: 'Running', status: 'True', lastUpdateTime: '2024-01-02T03:04:05Z', reason: 'Started', message: 'chunk 1' }], resourceVersion: '42' },
  };

  it('round-trips through protobuf and YAML', () => {
    const pb = encodeObject(root, 'k8s.io.api.storagemigration.v1alpha1.StorageVersionMigration', full);
    expect(Buffer.from(pb.subarray(0, 4)).toString('latin1')).toBe('k8s\0');
    expect(decodeObject(root, pb, messageNameResolver(root)).object).toEqual(full);
    expect(parseYaml(toYaml(full))).toEqual(full);
  });

  it('writes GroupVersionResource and MigrationCondition with the v1alpha1 field numbers', () => {
    const hex = (s: string) => Buffer.from(s, 'latin1').toString('hex');
    expect(Buffer.from(encodeMessage(root, 'k8s.io.api.storagemigration.v1alpha1.GroupVersionResource', { group: 'apps', version: 'v1', resource: 'deployments' })).toString('hex')).toBe(
      `0a04${hex('apps')}1202${hex('v1')}1a0b${hex('deployments')}`,
    );
    // lastUpdateTime 2024-01-02T03:04:05Z is 1704164645 s (varint a5 fa cd ac 06) in Time field 1, nanos (field 2) always written.
    const seconds = '08a5facdac06';
    expect(Buffer.from(encodeMessage(root, 'k8s.io.api.storagemigration.v1alpha1.MigrationCondition', { type: 'Failed', status: 'True', lastUpdateTime: '2024-01-02T03:04:05Z', reason: 'R' })).toString('hex')).toBe(
      `0a06${hex('Failed')}1204${hex('True')}1a08${seconds}10002201${hex('R')}2a00`,
    );
  });
});

describe('StorageVersionMigration over HTTPS', () => {
  const PATH = '/apis/storagemigration.k8s.io/v1alpha1/storageversionmigrations';
  let off: RunningServer;
  let on: RunningServer;
  beforeAll(async () => {
    // kube-apiserver serves the alpha group only with both the gate and --runtime-config; runtimeConfig
    // is read by servers that have --runtime-config (the option is ignored where it is not known yet).
    const enabled: StartServerOptions = Object.assign({ storage: 'memory' as const, featureGates: 'StorageVersionMigrator=true' }, { runtimeConfig: 'storagemigration.k8s.io/v1alpha1=true' });
    [off, on] = await Promise.all([startServer({ storage: 'memory' }), startServer(enabled)]);
  });
  afterAll(() => Promise.all([off?.close(), on?.close()]));

  const req = (server: RunningServer, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    call(server.url, path, kubeconfigCredentials(server.kubeconfig), {
      method: init.method ?? 'GET',
      headers: { 'content-type': 'application/json', ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });

  it('is not served while the StorageVersionMigrator gate is off', async () => {
    expect((await req(off, PATH)).status).toBe(404);
    const groups = (await req(off, '/apis')).json<{ groups: { name: string }[] }>();
    expect(groups.groups.map((g) => g.name)).not.toContain('storagemigration.k8s.io');
  });

  it('creates, updates status through the subresource, and prints kube columns with the gate on', async () => {
    const created = await req(on, PATH, { method: 'POST', body: { ...svm(), status: { resourceVersion: '1' } } });
    expect(created.status).toBe(201);
    const body = created.json<Obj>();
    // The creator's status is dropped; Go always writes the non-pointer status struct.
    expect(body.status).toEqual({});
    const withStatus = { ...body, status: { resourceVersion: '17', conditions: [cond('Running')] } };
    const written = await req(on, `${PATH}/migrate-deployments/status`, { method: 'PUT', body: withStatus });
    expect(written.status).toBe(200);
    expect(written.json<Obj>().status).toEqual(withStatus.status);
    const bad = await req(on, `${PATH}/migrate-deployments/status`, { method: 'PUT', body: { ...written.json<Obj>(), status: { resourceVersion: '18', conditions: [cond('Running')] } } });
    expect(bad.status).toBe(422);
    expect(bad.json()).toMatchObject({ reason: 'Invalid', message: 'StorageVersionMigration.storagemigration.k8s.io "migrate-deployments" is invalid: status.resourceVersion: Invalid value: "18": cannot be updated' });
    const immutable = await req(on, `${PATH}/migrate-deployments`, { method: 'PUT', body: { ...written.json<Obj>(), spec: { resource: { group: 'apps', version: 'v2', resource: 'deployments' } } } });
    expect(immutable.status).toBe(422);
    expect(immutable.json()).toMatchObject({ message: 'StorageVersionMigration.storagemigration.k8s.io "migrate-deployments" is invalid: version: Invalid value: "v2": field is immutable' });
    const { resourceVersion: _rv, ...meta } = written.json<{ metadata: Obj }>().metadata;
    const unconditional = await req(on, `${PATH}/migrate-deployments`, { method: 'PUT', body: { ...written.json<Obj>(), metadata: meta } });
    expect(unconditional.status).toBe(422);
    expect(unconditional.json()).toMatchObject({
      message: 'storageversionmigrations.storagemigration.k8s.io "migrate-deployments" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
      details: { name: 'migrate-deployments', group: 'storagemigration.k8s.io', kind: 'storageversionmigrations' },
    });
    const table = await req(on, PATH, { headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' } });
    expect(table.json<{ rows: { cells: unknown[] }[] }>().rows.map((r) => r.cells)).toEqual([['migrate-deployments', 'deployments.v1.apps']]);
  });
});
