// rbac.authorization.k8s.io/v1 with kube-apiserver's causes (pkg/apis/rbac/validation and the
// v1 defaulters): roleRef rules and immutability, subject kinds, apiGroup defaults and the
// namespace rule, policy rules, aggregation selectors, path-segment names.

import { describe, expect, it } from 'vitest';
import { validatorOf } from '../support/validator-kinds.js';

const crb = validatorOf('ClusterRoleBinding');
const rb = validatorOf('RoleBinding');
const clusterRole = validatorOf('ClusterRole');
const role = validatorOf('Role');

const RBAC = 'rbac.authorization.k8s.io';
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

type Obj = Record<string, unknown>;
const defaulted = (v: ReturnType<typeof validatorOf>, obj: Obj): Obj => {
  const copy = structuredClone(obj);
  v.applyDefaults(copy);
  return copy;
};
const clusterBinding = (extra: Obj = {}): Obj => ({ metadata: { name: 'b' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' }, ...extra });
const binding = (extra: Obj = {}): Obj => ({ metadata: { name: 'b', namespace: 'ns' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'r' }, ...extra });

describe('defaults', () => {
  it('fills roleRef.apiGroup and the apiGroup of User and Group subjects, leaves ServiceAccount empty', () => {
    const obj = defaulted(crb, {
      metadata: { name: 'b' },
      roleRef: { kind: 'ClusterRole', name: 'view', apiGroup: '' },
      subjects: [{ kind: 'User', name: 'u' }, { kind: 'Group', name: 'g' }, { kind: 'ServiceAccount', name: 's', namespace: 'n' }],
    });
    expect(obj.roleRef).toEqual({ kind: 'ClusterRole', name: 'view', apiGroup: RBAC });
    expect(obj.subjects).toEqual([
      { kind: 'User', name: 'u', apiGroup: RBAC },
      { kind: 'Group', name: 'g', apiGroup: RBAC },
      { kind: 'ServiceAccount', name: 's', namespace: 'n' },
    ]);
  });

  it('keeps an apiGroup the writer gave', () => {
    const obj = defaulted(rb, binding({ subjects: [{ kind: 'User', name: 'u', apiGroup: 'example.com' }] }));
    expect((obj.subjects as Obj[])[0]?.apiGroup).toBe('example.com');
  });
});

describe('ClusterRoleBinding', () => {
  it.each<[string, Obj]>([
    ['a binding without subjects', clusterBinding()],
    ['User, Group and namespaced ServiceAccount subjects', clusterBinding({ subjects: [{ kind: 'User', name: 'alice@example.com', apiGroup: RBAC }, { kind: 'Group', name: 'system:masters', apiGroup: RBAC }, { kind: 'ServiceAccount', name: 'default', namespace: 'kube-system' }] })],
    ['a name with a colon (a path segment)', { ...clusterBinding(), metadata: { name: 'system:node' } }],
  ])('accepts %s', (_name, obj) => {
    expect(crb.validate(defaulted(crb, obj))).toEqual([]);
  });

  it.each<[string, Obj, { reason: string; field: string; message: string }[]]>([
    ['a roleRef to a Role', clusterBinding({ roleRef: { apiGroup: RBAC, kind: 'Role', name: 'r' } }), [{ reason: 'FieldValueNotSupported', field: 'roleRef.kind', message: 'Unsupported value: "Role": supported values: "ClusterRole"' }]],
    ['a roleRef without kind', clusterBinding({ roleRef: { apiGroup: RBAC, name: 'r' } }), [{ reason: 'FieldValueNotSupported', field: 'roleRef.kind', message: 'Unsupported value: "": supported values: "ClusterRole"' }]],
    ['a roleRef in another group', clusterBinding({ roleRef: { apiGroup: 'example.com', kind: 'ClusterRole', name: 'r' } }), [{ reason: 'FieldValueNotSupported', field: 'roleRef.apiGroup', message: `Unsupported value: "example.com": supported values: "${RBAC}"` }]],
    ['a roleRef without name', clusterBinding({ roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: '' } }), [{ reason: 'FieldValueRequired', field: 'roleRef.name', message: 'Required value' }]],
    ['a roleRef name with a slash', clusterBinding({ roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'a/b' } }), [{ reason: 'FieldValueInvalid', field: 'roleRef.name', message: `Invalid value: "a/b": may not contain '/'` }]],
    ['a subject of an unknown kind', clusterBinding({ subjects: [{ kind: 'Robot', name: 'r' }] }), [{ reason: 'FieldValueNotSupported', field: 'subjects[0].kind', message: 'Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"' }]],
    ['a subject without name', clusterBinding({ subjects: [{ kind: 'User', apiGroup: RBAC }] }), [{ reason: 'FieldValueRequired', field: 'subjects[0].name', message: 'Required value' }]],
    ['a ServiceAccount subject without namespace', clusterBinding({ subjects: [{ kind: 'ServiceAccount', name: 'default' }] }), [{ reason: 'FieldValueRequired', field: 'subjects[0].namespace', message: 'Required value' }]],
    ['a ServiceAccount subject with an apiGroup', clusterBinding({ subjects: [{ kind: 'ServiceAccount', name: 'sa', namespace: 'n', apiGroup: RBAC }] }), [{ reason: 'FieldValueNotSupported', field: 'subjects[0].apiGroup', message: `Unsupported value: "${RBAC}": supported values: ""` }]],
    ['a ServiceAccount subject whose name is no DNS subdomain', clusterBinding({ subjects: [{ kind: 'ServiceAccount', name: 'Bad_Name', namespace: 'n' }] }), [{ reason: 'FieldValueInvalid', field: 'subjects[0].name', message: `Invalid value: "Bad_Name": ${SUBDOMAIN_MSG}` }]],
    ['a User subject in another group', clusterBinding({ subjects: [{ kind: 'User', name: 'u', apiGroup: 'example.com' }] }), [{ reason: 'FieldValueNotSupported', field: 'subjects[0].apiGroup', message: `Unsupported value: "example.com": supported values: "${RBAC}"` }]],
    ['a name with a slash', { ...clusterBinding(), metadata: { name: 'a/b' } }, [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: "a/b": may not contain '/'` }]],
  ])('rejects %s', (_name, obj, causes) => {
    expect(crb.validate(defaulted(crb, obj))).toEqual(causes);
  });

  it('reports subjects one by one, in order', () => {
    const obj = clusterBinding({ subjects: [{ kind: 'ServiceAccount', name: 's' }, { kind: 'User', apiGroup: RBAC }] });
    expect(crb.validate(defaulted(crb, obj)).map((c) => c.field)).toEqual(['subjects[0].namespace', 'subjects[1].name']);
  });

  it('forbids changing roleRef, printing it as kube-apiserver prints the internal struct', () => {
    const old = { ...clusterBinding(), metadata: { name: 'b', resourceVersion: '1' } };
    const changed = { ...old, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'edit' } };
    expect(crb.validateUpdate(changed, old)).toEqual([
      { reason: 'FieldValueInvalid', field: 'roleRef', message: `Invalid value: {"APIGroup":"${RBAC}","Kind":"ClusterRole","Name":"edit"}: cannot change roleRef` },
    ]);
    expect(crb.validateUpdate({ ...old, subjects: [{ kind: 'User', name: 'u', apiGroup: RBAC }] }, old)).toEqual([]);
  });
});

describe('binding cause order (ValidateRoleBinding: roleRef.apiGroup, roleRef.kind, roleRef.name, then subjects)', () => {
  const bad = { roleRef: { apiGroup: 'example.com', kind: 'Group', name: '' }, subjects: [{ kind: 'Robot', name: 'r' }] };
  it.each<[string, ReturnType<typeof validatorOf>, Obj, string]>([
    ['ClusterRoleBinding', crb, clusterBinding(bad), 'ClusterRole'],
    ['RoleBinding', rb, binding(bad), 'Role", "ClusterRole'],
  ])('%s', (_name, v, obj, kinds) => {
    expect(v.validate(obj)).toEqual([
      { reason: 'FieldValueNotSupported', field: 'roleRef.apiGroup', message: `Unsupported value: "example.com": supported values: "${RBAC}"` },
      { reason: 'FieldValueNotSupported', field: 'roleRef.kind', message: `Unsupported value: "Group": supported values: "${kinds}"` },
      { reason: 'FieldValueRequired', field: 'roleRef.name', message: 'Required value' },
      { reason: 'FieldValueNotSupported', field: 'subjects[0].kind', message: 'Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"' },
    ]);
  });
});

describe('RoleBinding', () => {
  it('accepts a Role or a ClusterRole, and a ServiceAccount subject without namespace', () => {
    expect(rb.validate(defaulted(rb, binding({ subjects: [{ kind: 'ServiceAccount', name: 'default' }] })))).toEqual([]);
    expect(rb.validate(defaulted(rb, binding({ roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' } })))).toEqual([]);
  });

  it('rejects another roleRef kind', () => {
    expect(rb.validate(defaulted(rb, binding({ roleRef: { apiGroup: RBAC, kind: 'Group', name: 'x' } })))).toEqual([
      { reason: 'FieldValueNotSupported', field: 'roleRef.kind', message: 'Unsupported value: "Group": supported values: "Role", "ClusterRole"' },
    ]);
  });

  it('forbids changing roleRef', () => {
    const old = { ...binding(), metadata: { name: 'b', namespace: 'ns', resourceVersion: '1' } };
    expect(rb.validateUpdate({ ...old, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'r' } }, old).map((c) => [c.field, c.reason])).toEqual([['roleRef', 'FieldValueInvalid']]);
  });
});

describe('Role and ClusterRole rules', () => {
  const meta = { name: 'r', namespace: 'ns' };
  it.each<[string, Obj]>([
    ['a resource rule', { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }],
    ['a rule with resource names', { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] }],
  ])('Role accepts %s', (_name, rule) => {
    expect(role.validate({ metadata: meta, rules: [rule] })).toEqual([]);
  });

  it.each<[string, Obj, { reason: string; field: string; message: string }[]]>([
    ['a rule without verbs', { apiGroups: [''], resources: ['pods'] }, [{ reason: 'FieldValueRequired', field: 'rules[0].verbs', message: 'Required value: verbs must contain at least one value' }]],
    ['a rule without apiGroups', { verbs: ['get'], resources: ['pods'] }, [{ reason: 'FieldValueRequired', field: 'rules[0].apiGroups', message: 'Required value: resource rules must supply at least one api group' }]],
    ['a rule without resources', { verbs: ['get'], apiGroups: [''] }, [{ reason: 'FieldValueRequired', field: 'rules[0].resources', message: 'Required value: resource rules must supply at least one resource' }]],
    ['a non-resource URL', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, [{ reason: 'FieldValueInvalid', field: 'rules[0].nonResourceURLs', message: 'Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs' }]],
  ])('Role rejects %s', (_name, rule, causes) => {
    expect(role.validate({ metadata: meta, rules: [rule] })).toEqual(causes);
  });

  it('ClusterRole accepts non-resource URLs, but not together with resources', () => {
    expect(clusterRole.validate({ metadata: { name: 'c' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/version*'] }] })).toEqual([]);
    expect(clusterRole.validate({ metadata: { name: 'c' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'], resources: ['pods'] }] })).toEqual([
      { reason: 'FieldValueInvalid', field: 'rules[0].nonResourceURLs', message: 'Invalid value: ["/healthz"]: rules cannot apply to both regular resources and non-resource URLs' },
    ]);
  });
});

const LABEL_KEY_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('ClusterRole aggregationRule', () => {
  const sel = (s: Obj): Obj => ({ metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [s] } });
  it('accepts label and expression selectors', () => {
    expect(clusterRole.validate(sel({ matchLabels: { 'rbac.example.com/aggregate-to-admin': 'true' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }, { key: 'x', operator: 'Exists' }] }))).toEqual([]);
  });

  it.each<[string, Obj, { reason: string; field: string; message: string }[]]>([
    ['an empty selector list', { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [] } }, [{ reason: 'FieldValueRequired', field: 'aggregationRule.clusterRoleSelectors', message: 'Required value: at least one clusterRoleSelector required if aggregationRule is non-nil' }]],
    ['In without values', sel({ matchExpressions: [{ key: 'a', operator: 'In' }] }), [{ reason: 'FieldValueRequired', field: 'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values', message: "Required value: must be specified when `operator` is 'In' or 'NotIn'" }]],
    ['Exists with values', sel({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }), [{ reason: 'FieldValueForbidden', field: 'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values', message: "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'" }]],
    ['an unknown operator', sel({ matchExpressions: [{ key: 'a', operator: 'Near' }] }), [{ reason: 'FieldValueInvalid', field: 'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator', message: 'Invalid value: "Near": not a valid selector operator' }]],
    ['an empty operator', sel({ matchExpressions: [{ key: 'a', operator: '' }] }), [{ reason: 'FieldValueInvalid', field: 'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator', message: 'Invalid value: "": not a valid selector operator' }]],
    ['a value that is no label value', sel({ matchExpressions: [{ key: 'a', operator: 'In', values: ['ok', 'not ok'] }] }), [{ reason: 'FieldValueInvalid', field: 'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values[1]', message: `Invalid value: "not ok": ${LABEL_VALUE_MSG}` }]],
    // ValidateLabelSelectorRequirement: operator first, then the key, then the values.
    ['a bad key, operator and value, in kube-apiserver order', sel({ matchExpressions: [{ key: 'bad key', operator: 'Near', values: ['-x'] }] }), [
      { reason: 'FieldValueInvalid', field: 'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator', message: 'Invalid value: "Near": not a valid selector operator' },
      { reason: 'FieldValueInvalid', field: 'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].key', message: `Invalid value: "bad key": name part ${LABEL_KEY_MSG}` },
      { reason: 'FieldValueInvalid', field: 'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values[0]', message: `Invalid value: "-x": ${LABEL_VALUE_MSG}` },
    ]],
    // ValidateLabels reports at matchLabels itself, without the key.
    ['a matchLabels key and value that are invalid', sel({ matchLabels: { 'bad key': 'ok', good: '-bad' } }), [
      { reason: 'FieldValueInvalid', field: 'aggregationRule.clusterRoleSelectors[0].matchLabels', message: `Invalid value: "bad key": name part ${LABEL_KEY_MSG}` },
      { reason: 'FieldValueInvalid', field: 'aggregationRule.clusterRoleSelectors[0].matchLabels', message: `Invalid value: "-bad": ${LABEL_VALUE_MSG}` },
    ]],
  ])('rejects %s', (_name, obj, causes) => {
    expect(clusterRole.validate(obj)).toEqual(causes);
  });
});
