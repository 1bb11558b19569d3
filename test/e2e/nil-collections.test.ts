// Lists Go declares without omitempty (Role and ClusterRole `rules`) are written as null when
// unset, as kube-apiserver returns them; sent ones are kept, an empty one as []. Over HTTPS, then through protobuf,
// which has no null: the list is left out and decoding plus defaulting gives back null.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeObject, encodeObject, loadDescriptorRoot, messageNameResolver } from '../../runtime/api/protobuf/index.js';
import { validatorOf } from '../support/validator-kinds.js';
import { useMemoryServer } from '../support/memory-server.js';

type Obj = Record<string, unknown> & { metadata: Record<string, unknown> };
const api = useMemoryServer();
const send = (method: string, path: string, body?: unknown) => api.send<Obj>(method, path, body);

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const rule = { apiGroups: [''], resources: ['pods'], verbs: ['get'] };
const selector = { matchLabels: { aggregate: 'yes' } };

describe('rules without omitempty over HTTPS', () => {
  it.each([
    ['a Role without rules', `${RBAC}/namespaces/default/roles`, { kind: 'Role', metadata: { name: 'empty' } }, null],
    ['a Role with rules', `${RBAC}/namespaces/default/roles`, { kind: 'Role', metadata: { name: 'full' }, rules: [rule] }, [rule]],
    ['a Role with rules: null', `${RBAC}/namespaces/default/roles`, { kind: 'Role', metadata: { name: 'nulled' }, rules: null }, null],
    // An empty, non-nil slice is written as [] by Go, whatever omitempty would do.
    ['a Role with rules: []', `${RBAC}/namespaces/default/roles`, { kind: 'Role', metadata: { name: 'none' }, rules: [] }, []],
    ['a ClusterRole with rules: []', `${RBAC}/clusterroles`, { kind: 'ClusterRole', metadata: { name: 'none' }, rules: [] }, []],
    ['a ClusterRole without rules', `${RBAC}/clusterroles`, { kind: 'ClusterRole', metadata: { name: 'empty' } }, null],
    ['an aggregated ClusterRole', `${RBAC}/clusterroles`, { kind: 'ClusterRole', metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [selector] } }, null],
  ])('%s: 201, and GET and LIST return the same rules', async (_name, path, body, want) => {
    const created = await send('POST', path, { apiVersion: 'rbac.authorization.k8s.io/v1', ...body });
    expect(created.status).toBe(201);
    expect(created.body.rules).toEqual(want);
    expect('rules' in created.body).toBe(true);
    const got = await send('GET', `${path}/${body.metadata.name}`);
    expect(got.body.rules).toEqual(want);
    const list = await send('GET', path);
    const item = (list.body.items as Obj[]).find((i) => i.metadata.name === body.metadata.name);
    expect(item?.rules).toEqual(want);
  });

  it('a null rules list is owned by its writer and survives an update that leaves it out', async () => {
    const got = await send('GET', `${RBAC}/namespaces/default/roles/empty`);
    // structured-merge-diff lists a null member as a field, as it did for the null
    // creationTimestamp older clients sent.
    expect((got.body.metadata.managedFields as { fieldsV1: unknown }[])[0].fieldsV1).toEqual({ 'f:rules': {} });
    const { rules: _rules, ...withoutRules } = got.body;
    const put = await send('PUT', `${RBAC}/namespaces/default/roles/empty`, { ...withoutRules, metadata: { ...got.body.metadata, labels: { a: 'b' } } });
    expect(put.status).toBe(200);
    expect(put.body.rules).toBeNull();
  });

  it('a rule of a Role is still validated (422 at rules[0].verbs)', async () => {
    const res = await send('POST', `${RBAC}/namespaces/default/roles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'bad' }, rules: [{ apiGroups: [''], resources: ['pods'] }] });
    expect(res.status).toBe(422);
    const causes = (res.body as unknown as { details: { causes: { reason: string; field: string }[] } }).details.causes;
    expect(causes).toEqual([expect.objectContaining({ reason: 'FieldValueRequired', field: 'rules[0].verbs' })]);
  });
});

describe('rules without omitempty through protobuf', () => {
  const root = loadDescriptorRoot(join(import.meta.dirname, '..', '..', 'generated', 'protobuf', 'descriptors.json'));
  const names = messageNameResolver(root);
  const role = validatorOf('Role');

  it('writes null rules as no field and decodes, once defaulted, to what JSON gives', () => {
    const json = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r', namespace: 'default' }, rules: null };
    const bytes = encodeObject(root, 'k8s.io.api.rbac.v1.Role', json);
    const absent = encodeObject(root, 'k8s.io.api.rbac.v1.Role', { ...json, rules: undefined });
    expect(Buffer.from(bytes).equals(Buffer.from(absent))).toBe(true);
    const decoded = decodeObject(root, bytes, names).object as Record<string, unknown>;
    role.applyDefaults(decoded);
    expect(decoded).toEqual(json);
  });
});
