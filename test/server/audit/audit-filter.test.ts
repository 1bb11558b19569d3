// The audit filter inside the app, driven in-process: a handler that fails with a bug is a Panic
// event (no ResponseComplete), as kube's WithAudit records a panic; a StatusError is an ordinary
// ResponseComplete.
import { describe, expect, it } from 'vitest';
import type { Authenticator } from '../../../runtime/auth/authenticator.js';
import { alwaysAllowAuthorizer } from '../../../runtime/auth/authorizer.js';
import { StatusError } from '../../../runtime/errors/status-error.js';
import { createApp } from '../../../runtime/server/app.js';
import type { AuditEvent } from '../../../runtime/server/audit/event.js';
import type { AuditSink } from '../../../runtime/server/audit/log-backend.js';
import { policyRuleEvaluator } from '../../../runtime/server/audit/policy.js';

const alice: Authenticator = {
  name: 'test',
  authenticate: () => ({ kind: 'user', user: { name: 'alice', uid: '', groups: ['system:authenticated'], extra: {} }, authenticator: 'test' }),
};

function appWith(handler: () => Response) {
  const written: AuditEvent[] = [];
  const sink: AuditSink = {
    mode: 'blocking',
    process: async (event) => {
      written.push(event);
      return true;
    },
    close: async () => {},
  };
  const app = createApp({
    authenticator: alice,
    authorizer: alwaysAllowAuthorizer,
    apiHandler: handler,
    audit: { evaluate: policyRuleEvaluator({ rules: [{ level: 'Metadata' }] }), sink },
  });
  return { app, written };
}

describe('the audit filter', () => {
  it('writes a Panic event for a handler that fails with a bug, and still answers 500', async () => {
    const { app, written } = appWith(() => {
      throw new TypeError('boom');
    });
    const res = await app.request('/api/v1/namespaces/default/pods/p');
    expect(res.status).toBe(500);
    expect(written.map((e) => e.stage)).toEqual(['RequestReceived', 'Panic']);
    expect(written[1].responseStatus).toEqual({ metadata: {}, status: 'Failure', message: "APIServer panic'd: boom", reason: 'InternalError', code: 500 });
    expect(written[1].auditID).toBe(res.headers.get('audit-id'));
  });

  it('writes ResponseComplete with the Status for a StatusError', async () => {
    const { app, written } = appWith(() => {
      throw new StatusError(409, 'AlreadyExists', 'pods "p" already exists', { name: 'p', kind: 'pods' });
    });
    const res = await app.request('/api/v1/namespaces/default/pods', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(409);
    expect(written.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    expect(written[1]).toMatchObject({
      verb: 'create',
      user: { username: 'alice', groups: ['system:authenticated'] },
      responseStatus: { code: 409, reason: 'AlreadyExists', message: 'pods "p" already exists' },
      annotations: { 'authorization.k8s.io/decision': 'allow' },
    });
  });
});
