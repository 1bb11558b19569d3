// A plain node:https request made from a ClientConfig, as a transport would make it: credentials
// asked for before the request, a 401 reported with the credentials used and the request sent
// once more (client-go's retry after a plugin refresh). A fresh connection each time, so a new
// client certificate always gets its own handshake.

import { request } from 'node:https';
import type { ClientConfig, Credentials } from '../../client/config/index.js';

export interface ConfigResponse {
  status: number;
  body: string;
  json<T = Record<string, unknown>>(): T;
  /** The credentials of the request that produced this response. */
  used: Credentials;
}

export async function requestWithConfig(config: ClientConfig, path: string, init: { method?: string; body?: unknown } = {}): Promise<ConfigResponse> {
  const first = await once(config, path, init);
  if (first.status !== 401) return first;
  config.credentials.invalidate(first.used);
  return once(config, path, init);
}

async function once(config: ClientConfig, path: string, init: { method?: string; body?: unknown }): Promise<ConfigResponse> {
  const used = await config.credentials.get();
  const body = init.body === undefined ? undefined : JSON.stringify(init.body);
  const headers: Record<string, string> = {};
  if (used.token) headers.authorization = `Bearer ${used.token}`;
  if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(config.server + path),
      {
        method: init.method ?? 'GET',
        headers,
        agent: false,
        ca: config.tls.ca,
        rejectUnauthorized: !config.tls.insecureSkipTLSVerify,
        servername: config.tls.serverName,
        cert: used.clientCertificate?.cert,
        key: used.clientCertificate?.key,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text, json: <T>() => JSON.parse(text) as T, used });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
