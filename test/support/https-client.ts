// A small HTTPS client for tests: node's https with the credentials a kubeconfig carries.
import { request as httpsRequest } from 'node:https';
import { parse } from 'yaml';

export interface Credentials {
  ca: string;
  cert?: string;
  key?: string;
  token?: string;
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json<T = Record<string, unknown>>(): T;
}

/** The admin credentials of a kubeconfig (YAML text). */
export function kubeconfigCredentials(kubeconfig: string): Credentials & { server: string } {
  const doc = parse(kubeconfig) as {
    clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
    users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
  };
  const unb64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
  return {
    server: doc.clusters[0].cluster.server,
    ca: unb64(doc.clusters[0].cluster['certificate-authority-data']),
    cert: unb64(doc.users[0].user['client-certificate-data']),
    key: unb64(doc.users[0].user['client-key-data']),
  };
}

export function call(
  baseUrl: string,
  path: string,
  creds: Credentials,
  init: { method?: string; headers?: Record<string, string | string[]>; body?: string } = {},
): Promise<HttpResult> {
  const url = new URL(path, baseUrl);
  const headers: Record<string, string | string[]> = { ...init.headers };
  if (creds.token) headers.authorization = `Bearer ${creds.token}`;
  // Node neither chunks nor sizes a DELETE body on its own; without a length the server sees none.
  if (init.body !== undefined && headers['content-length'] === undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      { method: init.method ?? 'GET', headers, ca: creds.ca, cert: creds.cert, key: creds.key, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (init.body !== undefined) req.write(init.body);
    req.end();
  });
}
