import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildKubeconfig, serverUrl, writeKubeconfig } from '../../runtime/auth/kubeconfig.js';
import { createCertificateAuthority, ensurePki, issueCertificate, PKI_FILES } from '../../runtime/auth/pki.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pki-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const read = (name: string) => readFileSync(join(dir, name), 'utf8');
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

describe('ensurePki', () => {
  it('creates a CA, a serving certificate and an admin certificate, all PEM, keys 0600', async () => {
    const pki = await ensurePki({ dataDir: dir });
    for (const file of Object.values(PKI_FILES)) expect(read(file)).toMatch(/^-----BEGIN /);
    for (const key of [PKI_FILES.caKey, PKI_FILES.servingKey, PKI_FILES.adminKey]) {
      expect(statSync(join(dir, key)).mode & 0o777).toBe(0o600);
      expect(read(key)).toContain('PRIVATE KEY');
    }
    expect(pki.caCert).toBe(read(PKI_FILES.caCert));
    expect(pki.servingCa).toBe(pki.caCert);
    expect(pki.clientCa).toBe(pki.caCert);
    expect(pki.clientRoots.map((r) => r.fingerprint256)).toEqual([new X509Certificate(pki.caCert).fingerprint256]);
    expect(pki.adminTrusted).toBe(true);
  });

  it('trusts every certificate of a CA file made a bundle by hand, as it always did', async () => {
    const first = await ensurePki({ dataDir: dir });
    const other = await createCertificateAuthority('another-client-ca');
    writeFileSync(join(dir, PKI_FILES.caCert), `${first.caCert}\n${other.certPem}\n`);
    const pki = await ensurePki({ dataDir: dir });
    expect(pki.clientRoots.map((r) => r.fingerprint256)).toEqual([first.caCert, other.certPem].map((pem) => new X509Certificate(pem).fingerprint256));
    expect(pki.adminTrusted).toBe(true);
  });

  it('issues certificates that chain to the CA with the right names and usages', async () => {
    const pki = await ensurePki({ dataDir: dir });
    const ca = new X509Certificate(pki.caCert);
    const serving = new X509Certificate(pki.servingCert);
    const admin = new X509Certificate(pki.adminCert);
    expect(ca.ca).toBe(true);
    expect(ca.checkIssued(ca)).toBe(true);
    for (const leaf of [serving, admin]) {
      expect(leaf.checkIssued(ca)).toBe(true);
      expect(leaf.verify(ca.publicKey)).toBe(true);
      expect(leaf.ca).toBe(false);
      expect(leaf.publicKey.asymmetricKeyType).toBe('ec');
    }
    expect(serving.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(serving.checkIP('::1')).toBeDefined();
    expect(serving.checkHost('localhost')).toBe('localhost');
    expect(serving.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(serving.subjectAltName).toContain('DNS:localhost');
    expect(serving.keyUsage).toEqual([SERVER_AUTH]);
    expect(admin.subject.split('\n')).toEqual(['CN=admin', 'O=system:masters']);
    expect(admin.keyUsage).toEqual([CLIENT_AUTH]);
    // The leaf keys belong to the certificates.
    expect(serving.checkPrivateKey((await import('node:crypto')).createPrivateKey(pki.servingKey))).toBe(true);
    expect(admin.checkPrivateKey((await import('node:crypto')).createPrivateKey(pki.adminKey))).toBe(true);
  });

  it('reuses every file on the next start', async () => {
    await ensurePki({ dataDir: dir });
    const before = Object.fromEntries(Object.values(PKI_FILES).map((f) => [f, read(f)]));
    const again = await ensurePki({ dataDir: dir });
    for (const [file, text] of Object.entries(before)) expect(read(file)).toBe(text);
    expect(again.caCert).toBe(before[PKI_FILES.caCert]);
    expect(again.adminCert).toBe(before[PKI_FILES.adminCert]);
  });

  it('re-issues the serving certificate, and only it, when a new name is needed', async () => {
    await ensurePki({ dataDir: dir });
    const ca = read(PKI_FILES.caCert);
    const admin = read(PKI_FILES.adminCert);
    const serving = read(PKI_FILES.servingCert);
    const pki = await ensurePki({ dataDir: dir, servingNames: ['10.1.2.3'] });
    expect(read(PKI_FILES.caCert)).toBe(ca);
    expect(read(PKI_FILES.adminCert)).toBe(admin);
    expect(pki.servingCert).not.toBe(serving);
    expect(new X509Certificate(pki.servingCert).checkIP('10.1.2.3')).toBe('10.1.2.3');
  });

  it('tells an IPv6 serving name from a DNS name, issuing it as an IP address and keeping it on the next start', async () => {
    const pki = await ensurePki({ dataDir: dir, servingNames: ['fd00::10', 'api.example.test'] });
    const serving = new X509Certificate(pki.servingCert);
    expect(serving.checkIP('fd00::10')).toBeDefined();
    expect(serving.checkHost('api.example.test')).toBe('api.example.test');
    expect(serving.subjectAltName).not.toContain('DNS:fd00::10');
    const again = await ensurePki({ dataDir: dir, servingNames: ['fd00::10', 'api.example.test'] });
    expect(again.servingCert).toBe(pki.servingCert);
  });

  it('replaces a leaf the CA did not sign', async () => {
    await ensurePki({ dataDir: dir });
    const stranger = await createCertificateAuthority('stranger');
    const foreign = await issueCertificate(stranger, { subject: 'CN=admin, O=system:masters', usage: 'clientAuth' });
    writeFileSync(join(dir, PKI_FILES.adminCert), foreign.certPem);
    const pki = await ensurePki({ dataDir: dir });
    expect(new X509Certificate(pki.adminCert).checkIssued(new X509Certificate(pki.caCert))).toBe(true);
  });

  it('uses --tls-cert-file/--tls-private-key-file and --client-ca-file instead of the generated ones', async () => {
    const other = await createCertificateAuthority('other-ca');
    const serving = await issueCertificate(other, { subject: 'CN=custom', usage: 'serverAuth', names: ['127.0.0.1'] });
    writeFileSync(join(dir, 'tls.crt'), serving.certPem);
    writeFileSync(join(dir, 'tls.key'), serving.keyPem);
    writeFileSync(join(dir, 'clients.crt'), other.certPem);
    const pki = await ensurePki({
      dataDir: join(dir, 'data'),
      tlsCertFile: join(dir, 'tls.crt'),
      tlsPrivateKeyFile: join(dir, 'tls.key'),
      clientCaFile: join(dir, 'clients.crt'),
    });
    expect(pki.servingCert).toBe(serving.certPem);
    expect(pki.servingKey).toBe(serving.keyPem);
    expect(pki.clientCa).toBe(other.certPem);
    expect(pki.clientRoots.map((r) => r.fingerprint256)).toEqual([new X509Certificate(other.certPem).fingerprint256]);
    // Our CA did not sign the given serving certificate, and is not a client CA either.
    expect(pki.servingCa).not.toBe(pki.caCert);
    expect(pki.adminTrusted).toBe(false);
  });

  it('wants both --tls-cert-file and --tls-private-key-file', async () => {
    await expect(ensurePki({ dataDir: dir, tlsCertFile: join(dir, 'x.crt') })).rejects.toThrow(/must be given together/);
  });
});

describe('kubeconfig', () => {
  it('holds one cluster, one user and the selected context default', async () => {
    const pki = await ensurePki({ dataDir: dir });
    const text = buildKubeconfig({ server: 'https://127.0.0.1:6443', caPem: pki.caCert, clientCertPem: pki.adminCert, clientKeyPem: pki.adminKey });
    const doc = parse(text);
    expect(doc.apiVersion).toBe('v1');
    expect(doc.kind).toBe('Config');
    expect(doc['current-context']).toBe('default');
    expect(doc.contexts).toEqual([{ name: 'default', context: { cluster: doc.clusters[0].name, user: doc.users[0].name } }]);
    expect(doc.clusters[0].cluster.server).toBe('https://127.0.0.1:6443');
    const b64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
    expect(b64(doc.clusters[0].cluster['certificate-authority-data'])).toBe(pki.caCert);
    expect(b64(doc.users[0].user['client-certificate-data'])).toBe(pki.adminCert);
    expect(b64(doc.users[0].user['client-key-data'])).toBe(pki.adminKey);
  });

  it('reads back every value as the string it was given, however it must be quoted', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    const cases = [
      { server: 'https://127.0.0.1:6443' },
      { server: 'https://[::1]:6443', clusterName: 'a b', userName: 'true' },
      { server: 'https://10.0.0.1:1', clusterName: '123', userName: 'x: y #z' },
      { server: 'https://h:1', clusterName: 'null', userName: "'q\"" },
    ];
    for (const c of cases) {
      const doc = parse(buildKubeconfig({ ...c, caPem: pem, clientCertPem: `${pem}x`, clientKeyPem: `${pem}yy` }));
      const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
      const cluster = c.clusterName ?? 'kube-lite';
      const user = c.userName ?? 'admin';
      expect(doc).toEqual({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: cluster, cluster: { server: c.server, 'certificate-authority-data': b64(pem) } }],
        users: [{ name: user, user: { 'client-certificate-data': b64(`${pem}x`), 'client-key-data': b64(`${pem}yy`) } }],
        contexts: [{ name: 'default', context: { cluster, user } }],
        'current-context': 'default',
        preferences: {},
      });
    }
  });

  it('is rewritten only when it changes, with mode 0600', () => {
    const path = join(dir, 'admin.kubeconfig');
    writeKubeconfig(path, 'a: 1\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const first = statSync(path).mtimeMs;
    writeKubeconfig(path, 'a: 1\n');
    expect(statSync(path).mtimeMs).toBe(first);
    writeKubeconfig(path, 'a: 2\n');
    expect(read('admin.kubeconfig')).toBe('a: 2\n');
  });

  it('points clients at loopback for wildcard bind addresses', () => {
    expect(serverUrl('127.0.0.1', 6443)).toBe('https://127.0.0.1:6443');
    expect(serverUrl('0.0.0.0', 1)).toBe('https://127.0.0.1:1');
    expect(serverUrl('::', 2)).toBe('https://[::1]:2');
    expect(serverUrl('::1', 3)).toBe('https://[::1]:3');
  });
});
