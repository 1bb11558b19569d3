// A pod whose persistentVolumeClaim volume names the claim its own ephemeral volume creates, over
// HTTPS: 422 Invalid with the reference reported after the volume's own causes (ValidateVolumes);
// without the clash the same pod is created.
import { describe, expect, it } from 'vitest';
import { useMemoryServer } from '../support/memory-server.js';

type Status = { reason: string; details?: { causes?: { reason: string; field: string }[] } };
const api = useMemoryServer();
const PODS = '/api/v1/namespaces/default/pods';
const CLAIM_SPEC = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
const pod = (name: string, claimName: string, dataName = 'data') => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    containers: [{ name: 'app', image: 'nginx:1.27' }],
    volumes: [
      { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: CLAIM_SPEC } } },
      { name: dataName, persistentVolumeClaim: { claimName } },
    ],
  },
});

describe('pods referencing their own ephemeral claims', () => {
  it.each([
    ['a claim of another name', pod('ok', 'ok-other'), 201, []],
    ['its own ephemeral claim', pod('web', 'web-scratch'), 422, [{ reason: 'FieldValueInvalid', field: 'spec.volumes[1].persistentVolumeClaim.claimName' }]],
    [
      'its own ephemeral claim, from a volume with a bad name',
      pod('web', 'web-scratch', 'Data'),
      422,
      [
        { reason: 'FieldValueInvalid', field: 'spec.volumes[1].name' },
        { reason: 'FieldValueInvalid', field: 'spec.volumes[1].persistentVolumeClaim.claimName' },
      ],
    ],
  ])('%s: %i', async (_name, body, status, causes) => {
    const res = await api.send<Status>('POST', PODS, body);
    expect(res.status).toBe(status);
    if (status !== 422) return;
    expect(res.body.reason).toBe('Invalid');
    expect(res.body.details?.causes?.map((c) => ({ reason: c.reason, field: c.field }))).toEqual(causes);
  });
});
