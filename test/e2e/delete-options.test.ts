// DeleteOptions sent as a DELETE body over HTTPS (as client-go sends them): a uid precondition
// that does not hold is 409 Conflict and keeps the object; one that holds deletes it.
import { expect, it } from 'vitest';
import { useMemoryServer } from '../support/memory-server.js';

const api = useMemoryServer();
const CMS = '/api/v1/namespaces/default/configmaps';

it('honours a DeleteOptions body', async () => {
  const created = await api.send<{ metadata: { uid: string } }>('POST', CMS, { metadata: { name: 'held' }, data: { a: '1' } });
  expect(created.status).toBe(201);
  const options = (uid: string) => ({ apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid } });
  const stale = await api.send<{ reason: string; message: string }>('DELETE', `${CMS}/held`, options('not-the-uid'));
  expect(stale.status).toBe(409);
  expect(stale.body.reason).toBe('Conflict');
  // rest.BeforeDelete's early check, which names the kind where the resource would go.
  expect(stale.body.message).toBe(
    `Operation cannot be fulfilled on ConfigMap "held": the UID in the precondition (not-the-uid) does not match the UID in record (${created.body.metadata.uid}). The object might have been deleted and then recreated`,
  );
  expect((await api.send('GET', `${CMS}/held`)).status).toBe(200);
  const deleted = await api.send<{ status: string }>('DELETE', `${CMS}/held`, options(created.body.metadata.uid));
  expect(deleted.status).toBe(200);
  expect((await api.send('GET', `${CMS}/held`)).status).toBe(404);
});
