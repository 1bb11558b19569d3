// The server over an etcd that serves its clients over TLS and requires client certificates, as
// production etcd does (kubeadm's layout): --etcd-cafile verifies etcd, --etcd-certfile and
// --etcd-keyfile are the server's client pair. Without the right pair or CA nothing is read or
// written, and the server says why in its log; wrong files stop the server at start with etcd
// client's words (transport.TLSInfo), as kube-apiserver does.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, startServer, type RunningServer } from '../../runtime/index.js';
import { createCertificateAuthority, issueCertificate, type KeyedCert } from '../../runtime/auth/pki.js';
import { EtcdClient } from '../../runtime/storage/etcd-client/client.js';
import { etcdSecureContext } from '../../runtime/storage/etcd-tls.js';
import { call, kubeconfigCredentials } from '../support/https-client.js';
import { etcdBinary, startEtcd, type EtcdProcess } from '../support/etcd.js';

const binary = etcdBinary();
const cms = '/api/v1/namespaces/default/configmaps';

describe.runIf(binary)('the server over an etcd that requires TLS client certificates', () => {
  let etcd: EtcdProcess;
  let dir: string;
  let etcdCa: KeyedCert;
  const files: Record<string, string> = {};
  const servers: RunningServer[] = [];

  const write = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text);
    return (files[name] = join(dir, name));
  };

  const start = async (tls: { etcdCaFile?: string; etcdCertFile?: string; etcdKeyFile?: string }, logged: string[] = []) => {
    const server = await startServer({
      storage: 'etcd',
      etcdServers: etcd.endpoints,
      ...tls,
      logger: { debug: () => {}, info: () => {}, error: (message: string, ...args: unknown[]) => void logged.push([message, ...args].join(' ')) },
    });
    servers.push(server);
    const creds = kubeconfigCredentials(server.kubeconfig);
    const send = async (method: string, path: string, body?: unknown) => {
      const res = await call(server.url, path, creds, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (res.status === 200 && path === '/readyz' ? {} : res.json()) as Record<string, any> };
    };
    return { server, send };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'etcd-tls-test-'));
    etcdCa = await createCertificateAuthority('etcd-ca');
    const serving = await issueCertificate(etcdCa, { subject: 'CN=etcd', usage: 'serverAuth', names: ['127.0.0.1'] });
    const client = await issueCertificate(etcdCa, { subject: 'CN=kube-apiserver-etcd-client', usage: 'clientAuth' });
    const otherCa = await createCertificateAuthority('not-etcd-ca');
    const stranger = await issueCertificate(otherCa, { subject: 'CN=stranger', usage: 'clientAuth' });
    write('ca.crt', etcdCa.certPem);
    write('client.crt', client.certPem);
    write('client.key', client.keyPem);
    write('other-ca.crt', otherCa.certPem);
    write('stranger.crt', stranger.certPem);
    write('stranger.key', stranger.keyPem);
    write('not-pem.crt', 'this is no certificate\n');
    etcd = await startEtcd(binary!, [], {
      certPem: serving.certPem,
      keyPem: serving.keyPem,
      clientCaPem: etcdCa.certPem,
      probe: { caPem: etcdCa.certPem, certPem: client.certPem, keyPem: client.keyPem },
    });
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads and writes through the client pair, verifying etcd by --etcd-cafile', async () => {
    expect(etcd.endpoints[0]).toMatch(/^https:/);
    const tls = { etcdCaFile: files['ca.crt'], etcdCertFile: files['client.crt'], etcdKeyFile: files['client.key'] };
    const { server, send } = await start(tls);
    expect((await send('POST', cms, { metadata: { name: 'over-tls' }, data: { k: 'v' } })).status).toBe(201);
    expect((await send('GET', `${cms}/over-tls`)).body.data).toEqual({ k: 'v' });
    expect((await send('GET', '/readyz')).status).toBe(200);

    // It is in that etcd: a client with the same pair finds the key.
    const direct = new EtcdClient(etcd.endpoints, 5000, undefined, etcdSecureContext({ caFile: files['ca.crt'], certFile: files['client.crt'], keyFile: files['client.key'] }));
    try {
      const found = await direct.range({ key: Buffer.from('/registry/configmaps/default/over-tls') });
      expect(found.kvs).toHaveLength(1);
      expect(JSON.parse(Buffer.from(found.kvs[0].value).toString()).data).toEqual({ k: 'v' });
    } finally {
      direct.close();
    }

    // A second server on the same etcd (a restart, or another replica) reads what the first wrote.
    await server.close();
    const again = await start(tls);
    expect((await again.send('GET', `${cms}/over-tls`)).body.data).toEqual({ k: 'v' });
  });

  // kube-apiserver cannot start without its storage either; ours finds out at its first read.
  const unreachable = async (tls: { etcdCaFile?: string; etcdCertFile?: string; etcdKeyFile?: string }, why: RegExp) => {
    const logged: string[] = [];
    await expect(start(tls, logged)).rejects.toThrow('The get operation against namespaces could not be completed at this time, please try again.');
    expect(logged.join('\n')).toMatch(why);
  };

  // Under TLS 1.3 etcd refuses the certificate after the client has finished its side of the
  // handshake: the client reads etcd's alert, or, when its first write comes first, a reset.
  // etcd 3.4 sends bad_certificate for both; etcd 3.5 (built with a newer Go) sends
  // certificate_required for no certificate and unknown_ca for one of another CA.
  it('reaches nothing with a client certificate of another CA, or none, and logs why', async () => {
    await unreachable({ etcdCaFile: files['ca.crt'] }, /alert bad certificate|alert certificate required|write ECONNRESET/);
    await unreachable({ etcdCaFile: files['ca.crt'], etcdCertFile: files['stranger.crt'], etcdKeyFile: files['stranger.key'] }, /alert bad certificate|alert unknown ca|write ECONNRESET/);
  });

  it('does not trust etcd without its CA: the system roots do not hold it', async () => {
    await unreachable({}, /unable to verify the first certificate/);
    await unreachable({ etcdCaFile: files['other-ca.crt'], etcdCertFile: files['client.crt'], etcdKeyFile: files['client.key'] }, /unable to verify the first certificate/);
  });

  it('refuses to start with etcd client TLS files that cannot work, in etcd client words', async () => {
    const refused = (tls: Record<string, string>, message: string) =>
      expect(startServer({ storage: 'etcd', etcdServers: etcd.endpoints, ...tls })).rejects.toThrow(new ConfigurationError(message));
    await refused({ etcdCertFile: files['client.crt'] }, `KeyFile and CertFile must both be present[key: , cert: ${files['client.crt']}]`);
    await refused({ etcdKeyFile: files['client.key'] }, `KeyFile and CertFile must both be present[key: ${files['client.key']}, cert: ]`);
    await refused({ etcdCaFile: join(dir, 'missing.crt') }, `open ${join(dir, 'missing.crt')}: no such file or directory`);
    await refused({ etcdCertFile: dir, etcdKeyFile: files['client.key'] }, `read ${dir}: is a directory`);
    await refused({ etcdCertFile: files['client.crt'], etcdKeyFile: files['stranger.key'] }, 'tls: private key does not match public key');
    await refused({ etcdCertFile: files['not-pem.crt'], etcdKeyFile: files['client.key'] }, 'tls: failed to find any PEM data in certificate input');
    await refused({ etcdCertFile: files['client.crt'], etcdKeyFile: files['not-pem.crt'] }, 'tls: failed to find any PEM data in key input');
    await expect(startServer({ storage: 'memory', etcdCaFile: files['ca.crt'] })).rejects.toThrow(
      new ConfigurationError('--etcd-cafile, --etcd-certfile and --etcd-keyfile need etcd storage, not memory'),
    );
  });
});
