// Generic ObjectMeta rules (ValidateObjectMeta / ValidateObjectMetaUpdate), through a generated validator.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LABEL_MSG, SUBDOMAIN_MSG, validatorOf } from '../support/validator-kinds.js';

const cm = validatorOf('ConfigMap');
const QUALIFIED =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const invalid = (field: string, value: string, detail: string) => ({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(value)}: ${detail}` });

describe('ObjectMeta on create', () => {
  it('requires a name', () => {
    expect(cm.validate({ metadata: { namespace: 'default' } })).toEqual([{ reason: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required' }]);
  });

  it('requires a namespace for namespaced kinds, and a DNS label', () => {
    expect(cm.validate({ metadata: { name: 'a' } })).toEqual([{ reason: 'FieldValueRequired', field: 'metadata.namespace', message: 'Required value' }]);
    expect(cm.validate({ metadata: { name: 'a', namespace: 'Bad' } })).toEqual([invalid('metadata.namespace', 'Bad', LABEL_MSG)]);
  });

  it('checks the name with the kind name format, and generateName allowing a trailing dash', () => {
    expect(cm.validate({ metadata: { name: 'Bad_Name', namespace: 'd' } })).toEqual([invalid('metadata.name', 'Bad_Name', SUBDOMAIN_MSG)]);
    expect(cm.validate({ metadata: { name: 'app-x1', generateName: 'app-', namespace: 'd' } })).toEqual([]);
    expect(cm.validate({ metadata: { name: 'ok', generateName: 'Bad-', namespace: 'd' } })).toEqual([invalid('metadata.generateName', 'Bad-', SUBDOMAIN_MSG)]);
  });

  it('reports label key and value errors at metadata.labels', () => {
    expect(cm.validate({ metadata: { name: 'a', namespace: 'd', labels: { '-bad': 'ok', good: 'bad value', 'example.com/fine': 'v' } } })).toEqual([
      invalid('metadata.labels', '-bad', `name part ${QUALIFIED}`),
      invalid('metadata.labels', 'bad value', LABEL_VALUE),
    ]);
  });

  it('reports a label prefix error', () => {
    expect(cm.validate({ metadata: { name: 'a', namespace: 'd', labels: { '/x': 'v' } } })).toEqual([invalid('metadata.labels', '/x', 'prefix part must be non-empty')]);
  });

  it('accepts upper-case annotation keys and limits their total size to 256 KiB', () => {
    expect(cm.validate({ metadata: { name: 'a', namespace: 'd', annotations: { 'Example.COM/Note': 'x' } } })).toEqual([]);
    expect(cm.validate({ metadata: { name: 'a', namespace: 'd', annotations: { big: 'x'.repeat(256 * 1024) } } })).toEqual([
      { reason: 'FieldValueTooLong', field: 'metadata.annotations', message: 'Too long: may not be more than 262144 bytes' },
    ]);
  });

  it('checks owner references and allows one controller', () => {
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: '1', controller: true };
    expect(cm.validate({ metadata: { name: 'a', namespace: 'd', ownerReferences: [{ apiVersion: '', kind: 'K', name: 'n', uid: 'u' }] } })).toEqual([
      { reason: 'FieldValueInvalid', field: 'metadata.ownerReferences.apiVersion', message: 'Invalid value: "": version must not be empty' },
    ]);
    // Absent members are only "must not be empty", unindexed: OpenAPI lists them as required, but
    // kube-apiserver validates owner references by hand and reports no Required value.
    expect(cm.validate({ metadata: { name: 'a', namespace: 'd', ownerReferences: [{ kind: 'X' }] } })).toEqual([
      { reason: 'FieldValueInvalid', field: 'metadata.ownerReferences.apiVersion', message: 'Invalid value: "": version must not be empty' },
      { reason: 'FieldValueInvalid', field: 'metadata.ownerReferences.name', message: 'Invalid value: "": name must not be empty' },
      { reason: 'FieldValueInvalid', field: 'metadata.ownerReferences.uid', message: 'Invalid value: "": uid must not be empty' },
    ]);
    const swagger = JSON.parse(readFileSync(new URL('../../generated/openapi/v2/swagger.json', import.meta.url), 'utf8'));
    expect(swagger.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference'].required).toEqual(['apiVersion', 'kind', 'name', 'uid']);
    const causes = cm.validate({ metadata: { name: 'a', namespace: 'd', ownerReferences: [ref, { ...ref, name: 'p', uid: '2' }] } });
    expect(causes.map((c) => [c.field, c.message?.endsWith('Found "true" in references for ConfigMap/o and ConfigMap/p')])).toEqual([['metadata.ownerReferences', true]]);
  });

  it('checks managedFields operation', () => {
    expect(cm.validate({ metadata: { name: 'a', namespace: 'd', managedFields: [{ manager: 'm', operation: 'Create' }] } })).toEqual([
      { reason: 'FieldValueInvalid', field: 'metadata.managedFields[0].operation', message: 'Invalid value: "Create": must be `Apply` or `Update`' },
    ]);
  });

  it('names each disallowed character of a field manager with its byte position, and passes plain names', () => {
    const manager = 'k\u00e9\u0007x\u2028';
    const causes = cm.validate({ metadata: { name: 'a', namespace: 'd', managedFields: [{ manager, operation: 'Update' }] } });
    expect(causes.map((c) => [c.field, c.message?.split(': ').pop()])).toEqual([
      ['metadata.managedFields[0].manager', 'invalid character U+0007 (at position 3)'],
      ['metadata.managedFields[0].manager', 'invalid character U+2028 (at position 5)'],
    ]);
    expect(cm.validate({ metadata: { name: 'a', namespace: 'd', managedFields: [{ manager: 'kubectl-client-side-apply', operation: 'Update' }] } })).toEqual([]);
  });

  it('rejects non-standard unqualified finalizers per index, and orphan with foregroundDeletion', () => {
    expect(cm.validate({ metadata: { name: 'a', namespace: 'd', finalizers: ['kubernetes', 'mine'] } })).toEqual([
      invalid('metadata.finalizers[1]', 'mine', 'name is neither a standard finalizer name nor is it fully qualified'),
    ]);
    expect(cm.validate({ metadata: { name: 'a', namespace: 'd', finalizers: ['orphan', 'foregroundDeletion'] } })).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.finalizers',
        message: 'Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set',
      },
    ]);
  });
});

describe('ObjectMeta on create, every rule at once', () => {
  // Each rule adds to one list; a member the object does not hold runs no rule. Both are pinned
  // here: every section wrong in one object, in kube's order, and the same object's sections
  // emptied or nulled giving nothing.
  const wrong = {
    name: 'Bad_Name',
    namespace: 'd',
    labels: { 'bad key!': 'v' },
    annotations: { '/x': 'v' },
    ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: '', uid: 'u' }],
    finalizers: ['mine', 'bad/key/x'],
    managedFields: [
      { manager: 'm', operation: 'Update' },
      { manager: 'x'.repeat(129), operation: 'Patch', fieldsType: 'FieldsV2', subresource: 's'.repeat(257) },
    ],
  };

  it('reports every section, in the order kube-apiserver checks them', () => {
    const causes = cm.validate({ metadata: wrong });
    expect(causes.map((c) => [c.reason, c.field])).toEqual([
      ['FieldValueInvalid', 'metadata.name'],
      ['FieldValueInvalid', 'metadata.labels'],
      ['FieldValueInvalid', 'metadata.annotations'],
      ['FieldValueInvalid', 'metadata.ownerReferences.name'],
      ['FieldValueInvalid', 'metadata.finalizers'],
      ['FieldValueInvalid', 'metadata.managedFields[1].operation'],
      ['FieldValueInvalid', 'metadata.managedFields[1].fieldsType'],
      ['FieldValueTooLong', 'metadata.managedFields[1].manager'],
      ['FieldValueTooLong', 'metadata.managedFields[1].subresource'],
      ['FieldValueInvalid', 'metadata.finalizers[0]'],
    ]);
  });

  it('finds nothing in sections that are empty or absent', () => {
    const empty = { name: 'a', namespace: 'd', labels: {}, annotations: {}, ownerReferences: [], finalizers: [], managedFields: [] };
    expect(cm.validate({ metadata: empty })).toEqual([]);
    expect(cm.validate({ metadata: { name: 'a', namespace: 'd' } })).toEqual([]);
  });
});

describe('ObjectMeta on update', () => {
  const old = { metadata: { name: 'a', namespace: 'd', uid: 'u1', resourceVersion: '3', generation: 2, creationTimestamp: '2024-01-01T00:00:00Z' } };

  it('accepts an unchanged identity', () => {
    expect(cm.validateUpdate({ metadata: { ...old.metadata } }, old)).toEqual([]);
  });

  it('requires a resourceVersion and keeps name, namespace, uid and creationTimestamp', () => {
    expect(cm.validateUpdate({ metadata: { name: 'a', namespace: 'd', uid: 'u2', generation: 1, creationTimestamp: '2025-01-01T00:00:00Z' } }, old)).toEqual([
      { reason: 'FieldValueInvalid', field: 'metadata.resourceVersion', message: 'Invalid value: "": must be specified for an update' },
      { reason: 'FieldValueInvalid', field: 'metadata.generation', message: 'Invalid value: 1: must not be decremented' },
      { reason: 'FieldValueInvalid', field: 'metadata.uid', message: 'Invalid value: "u2": field is immutable' },
      { reason: 'FieldValueInvalid', field: 'metadata.creationTimestamp', message: 'Invalid value: "2025-01-01T00:00:00Z": field is immutable' },
    ]);
  });

  it('forbids new finalizers once deletion started', () => {
    const deleting = { metadata: { ...old.metadata, deletionTimestamp: '2024-02-01T00:00:00Z', finalizers: ['example.com/a'] } };
    expect(cm.validateUpdate({ metadata: { ...deleting.metadata, finalizers: ['example.com/a', 'example.com/b'] } }, deleting)).toEqual([
      { reason: 'FieldValueForbidden', field: 'metadata.finalizers', message: 'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/b"}' },
    ]);
  });
});
