// Pod volumes (the specification's "Volume (pod volume definition)") with kube-apiserver's causes:
// pkg/apis/core/validation ValidateVolumes, validateVolumeSource and the per-source helpers
// (validateKeyToPath, validateDownwardAPIVolumeFile, validateProjectionSources, ...), and the v1
// defaulters (defaultMode 0644, token lifetime 3600, emptyDir for a volume without source).
// kube quirks kept: a second source of one volume is reported at `cephFS` / `downwarAPI` for
// those two sources, downward API files and projected token paths are reported below the
// source rather than at their list index, a clusterTrustBundle below `clusterTrustBundlePEM`.
// Paths repeated across a projected volume's sources are checked by the pod strategy.

import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { strategiesFor } from '../../runtime/registry/strategies/index.js';
import { LABEL_MSG, validatorOf } from '../support/validator-kinds.js';

type Obj = Record<string, unknown>;
type Cause = { reason: string; field: string; message: string };

const podValidator = validatorOf('Pod');
/** The smallest valid claim spec, for ephemeral volumes whose claim is not under test. */
const CLAIM_SPEC = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
const MODE_MSG = 'must be a number between 0 and 0777 (octal), both inclusive';

const pod = (volumes: Obj[], name = 'web'): Obj => ({
  metadata: { name, namespace: 'default' },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], volumes },
});
const defaulted = (obj: Obj): Obj => {
  const copy = structuredClone(obj);
  podValidator.applyDefaults(copy);
  return copy;
};
const volumesOf = (obj: Obj): Obj[] => (obj.spec as Obj).volumes as Obj[];
/** The causes of the volumes alone (container rules are tested in pod.test.ts). */
const volumeCauses = (volumes: Obj[], name?: string): Cause[] =>
  podValidator.validate(defaulted(pod(volumes, name))).filter((c) => c.field?.startsWith('spec.volumes')) as Cause[];

describe('pod volume defaults', () => {
  it('fills defaultMode 0644 (420) for configMap, secret, downwardAPI and projected', () => {
    const vols = volumesOf(
      defaulted(pod([
        { name: 'a', configMap: { name: 'cm' } },
        { name: 'b', secret: { secretName: 's' } },
        { name: 'c', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
        { name: 'd', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } },
      ])),
    );
    expect(vols.map((v) => (Object.values(v).find((x) => typeof x === 'object') as Obj).defaultMode)).toEqual([420, 420, 420, 420]);
    expect(((vols[2].downwardAPI as Obj).items as Obj[])[0].fieldRef).toEqual({ apiVersion: 'v1', fieldPath: 'metadata.labels' });
    expect(((vols[3].projected as Obj).sources as Obj[])[0].serviceAccountToken).toEqual({ path: 'token', expirationSeconds: 3600 });
  });

  it('keeps an explicit mode, including 0', () => {
    const vols = volumesOf(defaulted(pod([{ name: 'a', secret: { secretName: 's', defaultMode: 0 } }])));
    expect((vols[0].secret as Obj).defaultMode).toBe(0);
  });

  it('gives a volume without any source an emptyDir, as the v1 defaulter does', () => {
    expect(volumesOf(defaulted(pod([{ name: 'scratch' }])))[0]).toEqual({ name: 'scratch', emptyDir: {} });
    expect(volumesOf(defaulted(pod([{ name: 'c', configMap: { name: 'x' } }])))[0].emptyDir).toBeUndefined();
  });
});

describe('pod volumes accepted', () => {
  it.each<[string, Obj[]]>([
    ['an emptyDir in memory with a size limit', [{ name: 'cache', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } }]],
    ['an emptyDir with the default medium', [{ name: 'cache', emptyDir: { medium: '' } }]],
    ['a claim', [{ name: 'data', persistentVolumeClaim: { claimName: 'data-0', readOnly: true } }]],
    ['a configMap with items and modes', [{ name: 'cfg', configMap: { name: 'app', optional: true, defaultMode: 0o400, items: [{ key: 'a', path: 'dir/a.conf', mode: 0o777 }] } }]],
    ['a secret with a decimal mode 511', [{ name: 's', secret: { secretName: 'tls', defaultMode: 511 } }]],
    ['a path with dots that are not a .. element', [{ name: 's', secret: { secretName: 'tls', items: [{ key: 'k', path: 'a..b/..c' }] } }]],
    ['downward API files', [{ name: 'info', downwardAPI: { items: [{ path: 'name', fieldRef: { fieldPath: 'metadata.name' } }, { path: 'team', fieldRef: { fieldPath: "metadata.labels['team']" } }, { path: 'cpu', resourceFieldRef: { containerName: 'app', resource: 'limits.cpu' } }] } }]],
    ['a projected volume of four kinds', [{ name: 'all', projected: { sources: [{ secret: { name: 's' } }, { configMap: { name: 'c' } }, { downwardAPI: { items: [{ path: 'ns', fieldRef: { fieldPath: 'metadata.namespace' } }] } }, { serviceAccountToken: { path: 'token', audience: 'vault', expirationSeconds: 600 } }] } }]],
    ['a token of 2^32 seconds', [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 4294967296 } }] } }]],
    ['a cluster trust bundle by signer and selector', [{ name: 'ctb', projected: { sources: [{ clusterTrustBundle: { signerName: 'example.com/signer', labelSelector: {}, path: 'ca.pem' } }] } }]],
    ['a cluster trust bundle by name', [{ name: 'ctb', projected: { sources: [{ clusterTrustBundle: { name: 'example-bundle', path: 'ca.pem', optional: true } }] } }]],
    ['an inline CSI volume', [{ name: 'csi', csi: { driver: 'csi.example.com', readOnly: true, volumeAttributes: { a: 'b' }, nodePublishSecretRef: { name: 'creds' } } }]],
    ['an ephemeral volume', [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { metadata: { labels: { a: 'b' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } }]],
    ['a claim named like another pod\'s ephemeral claim', [{ name: 'data', persistentVolumeClaim: { claimName: 'other-scratch' } }, { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: CLAIM_SPEC } } }]],
    ['an iSCSI disk', [{ name: 'disk', iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', lun: 255 } }]],
    ['an image volume', [{ name: 'model', image: { reference: 'registry.example/model:v1', pullPolicy: 'IfNotPresent' } }]],
    ['a gitRepo into a relative directory', [{ name: 'src', gitRepo: { repository: 'https://example.com/r.git', directory: '.' } }]],
  ])('%s', (_name, volumes) => {
    expect(volumeCauses(volumes)).toEqual([]);
  });
});

const FORBIDDEN_SECOND = 'Forbidden: may not specify more than 1 volume type';

describe('pod volumes rejected', () => {
  it.each<[string, Obj[], Cause[]]>([
    ['a volume without a name', [{ emptyDir: {} }], [{ reason: 'FieldValueRequired', field: 'spec.volumes[0].name', message: 'Required value' }]],
    ['a name that is not a DNS label', [{ name: 'Data.x', emptyDir: {} }], [{ reason: 'FieldValueInvalid', field: 'spec.volumes[0].name', message: `Invalid value: "Data.x": ${LABEL_MSG}` }]],
    ['two volumes of one name', [{ name: 'a', emptyDir: {} }, { name: 'a', configMap: { name: 'c' } }], [{ reason: 'FieldValueDuplicate', field: 'spec.volumes[1].name', message: 'Duplicate value: "a"' }]],
    ['two sources', [{ name: 'a', emptyDir: {}, secret: { secretName: 's' } }], [{ reason: 'FieldValueForbidden', field: 'spec.volumes[0].secret', message: FORBIDDEN_SECOND }]],
    ['three sources, each after the first reported', [{ name: 'a', hostPath: { path: '/x' }, configMap: { name: 'c' }, csi: { driver: 'd.example.com' } }], [
      { reason: 'FieldValueForbidden', field: 'spec.volumes[0].configMap', message: FORBIDDEN_SECOND },
      { reason: 'FieldValueForbidden', field: 'spec.volumes[0].csi', message: FORBIDDEN_SECOND },
    ]],
    ['a second source that is downwardAPI, at kube\'s misspelt path', [{ name: 'a', secret: { secretName: 's' }, downwardAPI: {} }], [{ reason: 'FieldValueForbidden', field: 'spec.volumes[0].downwarAPI', message: FORBIDDEN_SECOND }]],
    ['a claim without claimName', [{ name: 'a', persistentVolumeClaim: {} }], [{ reason: 'FieldValueRequired', field: 'spec.volumes[0].persistentVolumeClaim.claimName', message: 'Required value' }]],
    ['a configMap without a name', [{ name: 'a', configMap: {} }], [{ reason: 'FieldValueRequired', field: 'spec.volumes[0].configMap.name', message: 'Required value' }]],
    ['a secret without secretName', [{ name: 'a', secret: {} }], [{ reason: 'FieldValueRequired', field: 'spec.volumes[0].secret.secretName', message: 'Required value' }]],
    ['a defaultMode above 0777', [{ name: 'a', configMap: { name: 'c', defaultMode: 512 } }], [{ reason: 'FieldValueInvalid', field: 'spec.volumes[0].configMap.defaultMode', message: `Invalid value: 512: ${MODE_MSG}` }]],
    ['a negative defaultMode', [{ name: 'a', secret: { secretName: 's', defaultMode: -1 } }], [{ reason: 'FieldValueInvalid', field: 'spec.volumes[0].secret.defaultMode', message: `Invalid value: -1: ${MODE_MSG}` }]],
    ['an item without key and path', [{ name: 'a', configMap: { name: 'c', items: [{}] } }], [
      { reason: 'FieldValueRequired', field: 'spec.volumes[0].configMap.items[0].key', message: 'Required value' },
      { reason: 'FieldValueRequired', field: 'spec.volumes[0].configMap.items[0].path', message: 'Required value' },
    ]],
    ['an absolute item path', [{ name: 'a', secret: { secretName: 's', items: [{ key: 'k', path: '/etc/k' }] } }], [{ reason: 'FieldValueInvalid', field: 'spec.volumes[0].secret.items[0].path', message: 'Invalid value: "/etc/k": must be a relative path' }]],
    ['an item path with a .. element', [{ name: 'a', secret: { secretName: 's', items: [{ key: 'k', path: 'a/../../k' }] } }], [{ reason: 'FieldValueInvalid', field: 'spec.volumes[0].secret.items[0].path', message: 'Invalid value: "a/../../k": must not contain \'..\'' }]],
    ['an item path starting with ..', [{ name: 'a', configMap: { name: 'c', items: [{ key: 'k', path: '..data' }] } }], [{ reason: 'FieldValueInvalid', field: 'spec.volumes[0].configMap.items[0].path', message: 'Invalid value: "..data": must not start with \'..\'' }]],
    ['an item path of just ..', [{ name: 'a', configMap: { name: 'c', items: [{ key: 'k', path: '..' }] } }], [
      { reason: 'FieldValueInvalid', field: 'spec.volumes[0].configMap.items[0].path', message: 'Invalid value: "..": must not contain \'..\'' },
      { reason: 'FieldValueInvalid', field: 'spec.volumes[0].configMap.items[0].path', message: 'Invalid value: "..": must not start with \'..\'' },
    ]],
    ['an item mode above 0777', [{ name: 'a', configMap: { name: 'c', items: [{ key: 'k', path: 'k', mode: 1000 }] } }], [{ reason: 'FieldValueInvalid', field: 'spec.volumes[0].configMap.items[0].mode', message: `Invalid value: 1000: ${MODE_MSG}` }]],
    ['a downward API file without path, reported below the source', [{ name: 'a', downwardAPI: { items: [{ fieldRef: { fieldPath: 'metadata.name' } }] } }], [{ reason: 'FieldValueRequired', field: 'spec.volumes[0].downwardAPI.path', message: 'Required value' }]],
    ['a downward API file with both references', [{ name: 'a', downwardAPI: { items: [{ path: 'x', fieldRef: { fieldPath: 'metadata.name' }, resourceFieldRef: { resource: 'limits.cpu' } }] } }], [{ reason: 'FieldValueInvalid', field: 'spec.volumes[0].downwardAPI', message: 'Invalid value: "resource": fieldRef and resourceFieldRef can not be specified simultaneously' }]],
    ['a downward API file with neither reference', [{ name: 'a', downwardAPI: { items: [{ path: 'x' }] } }], [{ reason: 'FieldValueRequired', field: 'spec.volumes[0].downwardAPI', message: 'Required value: one of fieldRef and resourceFieldRef is required' }]],
    ['a downward API field a volume cannot show', [{ name: 'a', downwardAPI: { items: [{ path: 'x', fieldRef: { fieldPath: 'spec.nodeName' } }] } }], [
      { reason: 'FieldValueNotSupported', field: 'spec.volumes[0].downwardAPI.fieldRef.fieldPath', message: 'Unsupported value: "spec.nodeName": supported values: "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"' },
    ]],
    ['a downward API file path with ..', [{ name: 'a', downwardAPI: { items: [{ path: '../x', fieldRef: { fieldPath: 'metadata.name' } }] } }], [{ reason: 'FieldValueInvalid', field: 'spec.volumes[0].downwardAPI.path', message: 'Invalid value: "../x": must not contain \'..\'' }]],
    ['a projected source of two kinds', [{ name: 'a', projected: { sources: [{ secret: { name: 's' }, configMap: { name: 'c' } }] } }], [{ reason: 'FieldValueForbidden', field: 'spec.volumes[0].projected.sources[0]', message: FORBIDDEN_SECOND }]],
    ['a projected source of no kind (the specification: exactly one)', [{ name: 'a', projected: { sources: [{}] } }], [{ reason: 'FieldValueRequired', field: 'spec.volumes[0].projected.sources[0]', message: 'Required value: must specify a volume type' }]],
    ['a projected secret without a name', [{ name: 'a', projected: { sources: [{ secret: {} }] } }], [{ reason: 'FieldValueRequired', field: 'spec.volumes[0].projected.sources[0].secret.name', message: 'Required value' }]],
    ['a token without path, reported at projected.path', [{ name: 'a', projected: { sources: [{ serviceAccountToken: {} }] } }], [{ reason: 'FieldValueRequired', field: 'spec.volumes[0].projected.path', message: 'Required value' }]],
    ['an absolute token path', [{ name: 'a', projected: { sources: [{ serviceAccountToken: { path: '/token' } }] } }], [{ reason: 'FieldValueInvalid', field: 'spec.volumes[0].projected.path', message: 'Invalid value: "/token": must be a relative path' }]],
    ['a token shorter than 10 minutes', [{ name: 'a', projected: { sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 599 } }] } }], [{ reason: 'FieldValueInvalid', field: 'spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds', message: 'Invalid value: 599: may not specify a duration less than 10 minutes' }]],
    ['a token longer than 2^32 seconds', [{ name: 'a', projected: { sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 4294967297 } }] } }], [{ reason: 'FieldValueInvalid', field: 'spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds', message: 'Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds' }]],
    ['a cluster trust bundle with name and signerName', [{ name: 'a', projected: { sources: [{ clusterTrustBundle: { name: 'b', signerName: 'example.com/s', path: 'ca' } }] } }], [
      { reason: 'FieldValueInvalid', field: 'spec.volumes[0].projected.sources[0].clusterTrustBundlePEM', message: 'Invalid value: {"name":"b","path":"ca","signerName":"example.com/s"}: only one of name and signerName may be used' },
    ]],
    ['a cluster trust bundle with neither name nor signerName', [{ name: 'a', projected: { sources: [{ clusterTrustBundle: { path: 'ca' } }] } }], [{ reason: 'FieldValueRequired', field: 'spec.volumes[0].projected.sources[0].clusterTrustBundlePEM', message: 'Required value: either name or signerName must be specified' }]],
    ['a cluster trust bundle by name with a selector', [{ name: 'a', projected: { sources: [{ clusterTrustBundle: { name: 'b', labelSelector: {}, path: 'ca' } }] } }], [{ reason: 'FieldValueInvalid', field: 'spec.volumes[0].projected.sources[0].clusterTrustBundlePEM.labelSelector', message: 'Invalid value: {}: labelSelector must be unset if name is specified' }]],
    ['a cluster trust bundle without path', [{ name: 'a', projected: { sources: [{ clusterTrustBundle: { name: 'b' } }] } }], [{ reason: 'FieldValueRequired', field: 'spec.volumes[0].projected.sources[0].clusterTrustBundlePEM.path', message: 'Required value' }]],
    ['an emptyDir medium other than "" or Memory (the specification\'s rule)', [{ name: 'a', emptyDir: { medium: 'Disk' } }], [{ reason: 'FieldValueNotSupported', field: 'spec.volumes[0].emptyDir.medium', message: 'Unsupported value: "Disk": supported values: "", "Memory"' }]],
    ['a negative emptyDir size limit', [{ name: 'a', emptyDir: { sizeLimit: '-1Gi' } }], [{ reason: 'FieldValueForbidden', field: 'spec.volumes[0].emptyDir.sizeLimit', message: 'Forbidden: SizeLimit field must be a valid resource quantity' }]],
    ['an ephemeral volume without a claim template', [{ name: 'a', ephemeral: {} }], [{ reason: 'FieldValueRequired', field: 'spec.volumes[0].ephemeral.volumeClaimTemplate', message: 'Required value' }]],
    ['a CSI driver name over 63 characters', [{ name: 'a', csi: { driver: 'd'.repeat(64) } }], [{ reason: 'FieldValueTooLong', field: 'spec.volumes[0].csi.driver', message: 'Too long: may not be more than 63 bytes' }]],
    ['a CSI volume without driver', [{ name: 'a', csi: {} }], [{ reason: 'FieldValueRequired', field: 'spec.volumes[0].csi.driver', message: 'Required value' }]],
    ['a CSI secret reference without name', [{ name: 'a', csi: { driver: 'd.example.com', nodePublishSecretRef: {} } }], [{ reason: 'FieldValueRequired', field: 'spec.volumes[0].csi.nodePublishSecretRef.name', message: 'Required value' }]],
    ['an iSCSI disk with a bad iqn and lun', [{ name: 'a', iscsi: { targetPortal: 'p:3260', iqn: 'x', lun: 256 } }], [
      { reason: 'FieldValueInvalid', field: 'spec.volumes[0].iscsi.iqn', message: 'Invalid value: "x": must be valid format starting with iqn, eui, or naa' },
      { reason: 'FieldValueInvalid', field: 'spec.volumes[0].iscsi.lun', message: 'Invalid value: 256: must be between 0 and 255, inclusive' },
    ]],
    ['a gitRepo without repository', [{ name: 'a', gitRepo: {} }], [{ reason: 'FieldValueRequired', field: 'spec.volumes[0].gitRepo.repository', message: 'Required value' }]],
    ['an image volume with an unknown pull policy', [{ name: 'a', image: { reference: 'r', pullPolicy: 'Sometimes' } }], [{ reason: 'FieldValueNotSupported', field: 'spec.volumes[0].image.pullPolicy', message: 'Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"' }]],
  ])('%s', (_name, volumes, causes) => {
    expect(volumeCauses(volumes)).toEqual(causes);
  });

  it('reports paths a projected volume writes twice at projected, naming the source as kube does', () => {
    const def = resources.find((r) => r.kind === 'Pod');
    if (!def) throw new Error('Pod is not served');
    const { main } = strategiesFor(def);
    const obj = pod([{ name: 'p', projected: { sources: [
      { secret: { name: 's1', items: [{ key: 'a', path: 'x' }] } },
      { configMap: { name: 'c1', items: [{ key: 'b', path: 'x' }] } },
      { downwardAPI: { items: [{ path: 'x', fieldRef: { fieldPath: 'metadata.name' } }] } },
      { serviceAccountToken: { path: 'x' } },
    ] } }]);
    main.prepareForCreate(obj);
    expect(main.validate(obj).filter((c) => c.field?.startsWith('spec.volumes'))).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.volumes[0].projected', message: 'Invalid value: "c1": conflicting duplicate paths' },
      { reason: 'FieldValueInvalid', field: 'spec.volumes[0].projected', message: 'Invalid value: "x": conflicting duplicate paths' },
    ]);
  });

  it('does not look inside a second source, as kube-apiserver validates only the first', () => {
    const def = resources.find((r) => r.kind === 'Pod');
    if (!def) throw new Error('Pod is not served');
    const { main } = strategiesFor(def);
    const obj = pod([{ name: 'a', configMap: { name: 'c', defaultMode: 9999 }, secret: {} }]);
    main.prepareForCreate(obj);
    // secret comes before configMap in kube's order: the secret is validated, then the configMap
    // is only refused, and the causes come in that order.
    expect(main.validate(obj).filter((c) => c.field?.startsWith('spec.volumes'))).toEqual([
      { reason: 'FieldValueRequired', field: 'spec.volumes[0].secret.secretName', message: 'Required value' },
      { reason: 'FieldValueForbidden', field: 'spec.volumes[0].configMap', message: FORBIDDEN_SECOND },
    ]);
  });

  it('skips the second source of the volume at its own index when an earlier list item is not an object', () => {
    const def = resources.find((r) => r.kind === 'Pod');
    if (!def) throw new Error('Pod is not served');
    const { main } = strategiesFor(def);
    // The null item keeps index 0, so the two-source volume is spec.volumes[1] and its hostPath
    // (after emptyDir in kube's order) is not looked inside.
    const obj = pod([null as unknown as Obj, { name: 'b', emptyDir: {}, hostPath: { path: '' } }]);
    main.prepareForCreate(obj);
    expect(main.validate(obj).filter((c) => c.field?.startsWith('spec.volumes'))).toEqual([
      { reason: 'FieldValueTypeInvalid', field: 'spec.volumes[0]', message: 'Invalid value: "null": must be of type object' },
      { reason: 'FieldValueForbidden', field: 'spec.volumes[1].hostPath', message: FORBIDDEN_SECOND },
    ]);
  });

  it.each<[string, Obj, Cause[]]>([
    // The template's spec is a struct, not a pointer, upstream: a missing one is an empty claim
    // spec, which fails the claim's own required fields.
    ['a claim template without spec', { metadata: {} }, [
      { reason: 'FieldValueRequired', field: 'spec.volumes[0].ephemeral.volumeClaimTemplate.spec.accessModes', message: 'Required value: at least 1 access mode is required' },
      { reason: 'FieldValueRequired', field: 'spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources[storage]', message: 'Required value' },
    ]],
    ['a claim template asking for more than its limit', { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' }, limits: { storage: '1Gi' } } } }, [
      { reason: 'FieldValueInvalid', field: 'spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources.requests[storage]', message: 'Invalid value: "2Gi": must be less than or equal to storage limit of 1Gi' },
    ]],
  ])('validates an ephemeral claim template as a claim spec: %s', (_name, template, causes) => {
    const def = resources.find((r) => r.kind === 'Pod');
    if (!def) throw new Error('Pod is not served');
    const { main } = strategiesFor(def);
    const obj = pod([{ name: 'scratch', ephemeral: { volumeClaimTemplate: template } }]);
    main.prepareForCreate(obj);
    expect(main.validate(obj).filter((c) => c.field?.startsWith('spec.volumes'))).toEqual(causes);
  });

  const REFERENCE_MSG = 'must not reference a PVC that gets created for an ephemeral volume';
  const LONG_POD = `p${'o'.repeat(240)}d`;
  const ephemeralVolume = (name: string): Obj => ({ name, ephemeral: { volumeClaimTemplate: { spec: CLAIM_SPEC } } });
  it.each<[string, Obj[], string, Cause[]]>([
    ['a claim no ephemeral volume creates', [{ name: 'data', persistentVolumeClaim: { claimName: 'web-other' } }, ephemeralVolume('scratch')], 'web', []],
    ['a claim the pod\'s own ephemeral volume creates', [{ name: 'data', persistentVolumeClaim: { claimName: 'web-scratch' } }, ephemeralVolume('scratch')], 'web', [
      { reason: 'FieldValueInvalid', field: 'spec.volumes[0].persistentVolumeClaim.claimName', message: `Invalid value: "web-scratch": ${REFERENCE_MSG}` },
    ]],
    // ValidateVolumes reports the reference after the volume's own causes, Duplicate included.
    ['a faulty name and a created claim: the name first', [ephemeralVolume('scratch'), { name: 'Bad', persistentVolumeClaim: { claimName: 'web-scratch' } }], 'web', [
      { reason: 'FieldValueInvalid', field: 'spec.volumes[1].name', message: `Invalid value: "Bad": ${LABEL_MSG}` },
      { reason: 'FieldValueInvalid', field: 'spec.volumes[1].persistentVolumeClaim.claimName', message: `Invalid value: "web-scratch": ${REFERENCE_MSG}` },
    ]],
    ['a duplicate name and a created claim: the Duplicate first', [ephemeralVolume('scratch'), { name: 'scratch', persistentVolumeClaim: { claimName: 'web-scratch' } }], 'web', [
      { reason: 'FieldValueDuplicate', field: 'spec.volumes[1].name', message: 'Duplicate value: "scratch"' },
      { reason: 'FieldValueInvalid', field: 'spec.volumes[1].persistentVolumeClaim.claimName', message: `Invalid value: "web-scratch": ${REFERENCE_MSG}` },
    ]],
    // The reference is no error of its volume: a later namesake is still a Duplicate.
    ['the namesake of a volume whose only fault is the reference', [ephemeralVolume('scratch'), { name: 'data', persistentVolumeClaim: { claimName: 'web-scratch' } }, { name: 'data', emptyDir: {} }], 'web', [
      { reason: 'FieldValueInvalid', field: 'spec.volumes[1].persistentVolumeClaim.claimName', message: `Invalid value: "web-scratch": ${REFERENCE_MSG}` },
      { reason: 'FieldValueDuplicate', field: 'spec.volumes[2].name', message: 'Duplicate value: "data"' },
    ]],
    // The claim name is checked with the ephemeral source, before the volume name's DNS label rule,
    // and is an error of the volume: its namesake is no Duplicate.
    ['a claim name too long and a volume name no DNS label', [ephemeralVolume('scratch.volume'), { name: 'scratch.volume', emptyDir: {} }], LONG_POD, [
      { reason: 'FieldValueInvalid', field: 'spec.volumes[0].name', message: `Invalid value: "scratch.volume": PVC name "${LONG_POD}-scratch.volume": must be no more than 253 characters` },
      { reason: 'FieldValueInvalid', field: 'spec.volumes[0].name', message: 'Invalid value: "scratch.volume": must not contain dots' },
      { reason: 'FieldValueInvalid', field: 'spec.volumes[1].name', message: 'Invalid value: "scratch.volume": must not contain dots' },
    ]],
    ['a claim name too long: the namesake of its volume is no Duplicate', [ephemeralVolume('scratch-volume'), { name: 'scratch-volume', emptyDir: {} }], LONG_POD, [
      { reason: 'FieldValueInvalid', field: 'spec.volumes[0].name', message: `Invalid value: "scratch-volume": PVC name "${LONG_POD}-scratch-volume": must be no more than 253 characters` },
    ]],
    ['no claim name check for an ephemeral source that is a volume\'s second', [{ name: 'scratch', emptyDir: {}, ephemeral: { volumeClaimTemplate: { spec: CLAIM_SPEC } } }], LONG_POD, [
      { reason: 'FieldValueForbidden', field: 'spec.volumes[0].ephemeral', message: FORBIDDEN_SECOND },
    ]],
  ])('ephemeral claims in ValidateVolumes order: %s', (_name, volumes, podName, causes) => {
    const def = resources.find((r) => r.kind === 'Pod');
    if (!def) throw new Error('Pod is not served');
    const { main } = strategiesFor(def);
    const obj = pod(volumes, podName);
    main.prepareForCreate(obj);
    expect(main.validate(obj).filter((c) => c.field?.startsWith('spec.volumes'))).toEqual(causes);
  });

  it('checks the claim name an ephemeral volume makes from the pod name', () => {
    const def = resources.find((r) => r.kind === 'Pod');
    if (!def) throw new Error('Pod is not served');
    const { main } = strategiesFor(def);
    const name = `p${'o'.repeat(240)}d`;
    const obj = pod([{ name: 'scratch-volume', ephemeral: { volumeClaimTemplate: { spec: CLAIM_SPEC } } }], name);
    main.prepareForCreate(obj);
    expect(main.validate(obj).filter((c) => c.field?.startsWith('spec.volumes'))).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.volumes[0].name', message: `Invalid value: "scratch-volume": PVC name "${name}-scratch-volume": must be no more than 253 characters` },
    ]);
  });

  it('reports "must specify a volume type" for a volume that reaches validation without a source', () => {
    // Defaulting gives such a volume an emptyDir first, so only an undefaulted object shows it.
    expect(podValidator.validate(pod([{ name: 'a' }])).filter((c) => c.field?.startsWith('spec.volumes'))).toEqual([
      { reason: 'FieldValueRequired', field: 'spec.volumes[0]', message: 'Required value: must specify a volume type' },
    ]);
  });
});

// ValidateVolumes: each volume's source is checked before its name, and only a volume without any
// error joins the names seen, so the namesake of a faulty volume is no Duplicate. The generated
// validator does this from the spec (elementOrder, uniqueAmongValid); the pod strategy settles the
// order again once its own volume causes (projected paths, ephemeral claims) have joined.
describe('pod volume causes in ValidateVolumes order', () => {
  const def = resources.find((r) => r.kind === 'Pod');
  if (!def) throw new Error('Pod is not served');
  const { main } = strategiesFor(def);
  const strategyCauses = (volumes: Obj[]): Cause[] => {
    const obj = pod(volumes);
    main.prepareForCreate(obj);
    return main.validate(obj).filter((c) => c.field?.startsWith('spec.volumes')) as Cause[];
  };
  const only = (causes: Cause[]): Cause[] => causes.map(({ reason, field, message }) => ({ reason, field, message }));
  const CM_NAME = (i: number): Cause => ({ reason: 'FieldValueRequired', field: `spec.volumes[${i}].configMap.name`, message: 'Required value' });
  const DUP = (i: number, name: string): Cause => ({ reason: 'FieldValueDuplicate', field: `spec.volumes[${i}].name`, message: `Duplicate value: "${name}"` });

  it.each<[string, Obj[], Cause[]]>([
    ['two clean volumes of different names', [{ name: 'a', emptyDir: {} }, { name: 'b', configMap: { name: 'cm' } }], []],
    ['a faulty volume and its namesake: no Duplicate', [{ name: 'a', configMap: {} }, { name: 'a', emptyDir: {} }], [CM_NAME(0)]],
  ])('accepts the names of %s', (_name, volumes, want) => {
    expect(only(volumeCauses(volumes))).toEqual(want);
    expect(only(strategyCauses(volumes))).toEqual(want);
  });

  it.each<[string, Obj[], Cause[]]>([
    ['two clean namesakes', [{ name: 'a', emptyDir: {} }, { name: 'a', emptyDir: {} }], [DUP(1, 'a')]],
    ['a clean volume, then a faulty namesake: its source, then the Duplicate', [{ name: 'a', emptyDir: {} }, { name: 'a', configMap: {} }], [CM_NAME(1), DUP(1, 'a')]],
    ['a faulty source before a missing name', [{ name: '', configMap: {} }], [CM_NAME(0), { reason: 'FieldValueRequired', field: 'spec.volumes[0].name', message: 'Required value' }]],
    ['the first source, a second source, then the name', [{ name: 'A_', hostPath: { path: '' }, configMap: { name: 'cm' } }], [
      { reason: 'FieldValueRequired', field: 'spec.volumes[0].hostPath.path', message: 'Required value' },
      { reason: 'FieldValueForbidden', field: 'spec.volumes[0].configMap', message: 'Forbidden: may not specify more than 1 volume type' },
      { reason: 'FieldValueInvalid', field: 'spec.volumes[0].name', message: expect.stringContaining('Invalid value: "A_": a lowercase RFC 1123 label') },
    ]],
    ['volume after volume, whatever rule found the cause', [{ name: 'a', configMap: {} }, { name: 'B', emptyDir: {} }, { name: 'c', secret: { secretName: 's', defaultMode: 4096 } }], [
      CM_NAME(0),
      { reason: 'FieldValueInvalid', field: 'spec.volumes[1].name', message: expect.stringContaining('Invalid value: "B"') },
      { reason: 'FieldValueInvalid', field: 'spec.volumes[2].secret.defaultMode', message: `Invalid value: 4096: ${MODE_MSG}` },
    ]],
  ])('rejects %s', (_name, volumes, want) => {
    expect(only(volumeCauses(volumes))).toEqual(want);
    expect(only(strategyCauses(volumes))).toEqual(want);
  });

  it('counts a cause only the strategy finds (conflicting projected paths): its namesake is no Duplicate', () => {
    const projected = { name: 'x', projected: { sources: [{ configMap: { name: 'c', items: [{ key: 'k', path: 'p' }] } }, { secret: { name: 's', items: [{ key: 'k', path: 'p' }] } }] } };
    expect(only(strategyCauses([projected, { name: 'x', emptyDir: {} }]))).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.volumes[0].projected', message: 'Invalid value: "s": conflicting duplicate paths' },
    ]);
  });

  it('keeps the causes of other fields where they were', () => {
    const obj = pod([{ name: 'a', emptyDir: {} }, { name: 'a', configMap: {} }]);
    (obj.spec as Obj).restartPolicy = 'Sometimes';
    main.prepareForCreate(obj);
    const fields = main.validate(obj).map((c) => c.field);
    expect(fields.filter((f) => f?.startsWith('spec.volumes'))).toEqual(['spec.volumes[1].configMap.name', 'spec.volumes[1].name']);
    expect(fields.indexOf('spec.volumes[1].name')).toBeLessThan(fields.indexOf('spec.restartPolicy'));
  });
});
