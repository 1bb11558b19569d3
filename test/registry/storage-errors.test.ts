// How storage failures read to clients (interpretStorageError): kube-apiserver's Status for each,
// and nothing of the backend's own message where kube would not show it.

import { describe, expect, it } from 'vitest';
import { interpretStorageError } from '../../runtime/registry/storage-errors.js';
import { StorageError } from '../../runtime/storage/interface.js';

const deployments = { group: 'apps', resource: 'deployments' };
const secret = 'dial tcp 10.0.0.7:2379: connect: connection refused';

describe('interpretStorageError', () => {
  it('turns unreachable storage into a 500 ServerTimeout naming the operation, with Retry-After', () => {
    for (const op of ['get', 'list', 'create', 'update', 'delete'] as const) {
      const err = interpretStorageError(new StorageError('Unavailable', '/registry/deployments/ns/a', secret), op, deployments, 'a');
      expect(err.toStatus()).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `The ${op} operation against deployments.apps could not be completed at this time, please try again.`,
        reason: 'ServerTimeout',
        details: { name: op, group: 'apps', kind: 'deployments', retryAfterSeconds: 2 },
        code: 500,
      });
      expect(err.headers).toEqual({ 'Retry-After': '2' });
    }
  });

  it('tells a writer whose outcome is unknown 504 Timeout without inviting a retry; a reader may retry', () => {
    for (const op of ['create', 'update', 'delete'] as const) {
      const err = interpretStorageError(new StorageError('Timeout', '/registry/deployments/ns/a', secret), op, deployments, 'a');
      expect(err.toStatus()).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
        reason: 'Timeout',
        details: {},
        code: 504,
      });
      expect(err.headers).toEqual({});
    }
    expect(interpretStorageError(new StorageError('Timeout', '/k', secret), 'list', deployments).reason).toBe('ServerTimeout');
  });

  it("passes etcd's own refusal on as a 500 without a reason, in etcd's words", () => {
    const err = interpretStorageError(new StorageError('Internal', '/k', 'etcdserver: request is too large'), 'create', deployments, 'a');
    expect(err.toStatus()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'etcdserver: request is too large', code: 500 });
  });
});
