// The HTTPS client of an authorization webhook: where and as whom, from the kubeconfig file the
// configuration names (its current context's cluster server and CA, its user's client
// certificate or bearer token, files relative to the kubeconfig), and one POST of a JSON body
// with a per-attempt timeout. Failures are worded as client-go words them, since they reach
// clients inside a 500 Status; a token never appears in any of them.

import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { dirname, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';

export interface WebhookEndpoint {
  url: URL;
  ca?: string;
  cert?: string;
  key?: string;
  token?: string;
  insecureSkipTLSVerify?: boolean;
  serverName?: string;
}

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const asStr = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function named(list: unknown, name: string | undefined, field: string): Obj | undefined {
  if (!Array.isArray(list)) return undefined;
  const entry = name === undefined ? list[0] : list.find((e) => asObj(e).name === name);
  return entry === undefined ? undefined : asObj(asObj(entry)[field]);
}

/** Reads `<field>-data` (base64) or `<field>` (a path, relative to the kubeconfig). */
function material(section: Obj, field: string, base: string): string | undefined {
  const data = asStr(section[`${field}-data`]);
  if (data) return Buffer.from(data, 'base64').toString('utf8');
  const file = asStr(section[field]);
  if (file) return readFileSync(isAbsolute(file) ? file : join(base, file), 'utf8');
  return undefined;
}

/** webhookutil.LoadKubeconfig: the current context (or the only one) of the file. */
export function loadWebhookKubeconfig(path: string): WebhookEndpoint {
  const doc = asObj(parseYaml(readFileSync(path, 'utf8')));
  const base = dirname(path);
  const contextName = asStr(doc['current-context']);
  const context = named(doc.contexts, contextName, 'context') ?? {};
  const cluster = named(doc.clusters, asStr(context.cluster), 'cluster');
  if (!cluster || !asStr(cluster.server)) throw new Error(`invalid configuration: no server found for cluster ${JSON.stringify(asStr(context.cluster) ?? '')}`);
  const user = named(doc.users, asStr(context.user), 'user') ?? {};
  let url: URL;
  try {
    url = new URL(cluster.server as string);
  } catch {
    throw new Error(`host must be a URL or a host:port pair: ${JSON.stringify(cluster.server)}`);
  }
  const endpoint: WebhookEndpoint = { url };
  endpoint.ca = material(cluster, 'certificate-authority', base);
  endpoint.cert = material(user, 'client-certificate', base);
  endpoint.key = material(user, 'client-key', base);
  const tokenFile = asStr(user.tokenFile);
  endpoint.token = asStr(user.token) ?? (tokenFile ? readFileSync(isAbsolute(tokenFile) ? tokenFile : join(base, tokenFile), 'utf8').trim() : undefined);
  if (cluster['insecure-skip-tls-verify'] === true) endpoint.insecureSkipTLSVerify = true;
  const serverName = asStr(cluster['tls-server-name']);
  if (serverName) endpoint.serverName = serverName;
  return endpoint;
}

/** A failed POST; `retriable` as DefaultShouldRetry judges it (connection reset, 429, 500, 504). */
export class WebhookCallError extends Error {
  constructor(
    message: string,
    readonly retriable: boolean,
  ) {
    super(message);
  }
}

/** Beyond this an answer is refused: no review answer is near it, and a webhook must not exhaust memory. */
const MAX_ANSWER_BYTES = 10 * 1024 * 1024;

export interface WebhookResponse {
  status: number;
  body: string;
}

export class WebhookClient {
  private readonly agent: Agent;

  constructor(
    private readonly endpoint: WebhookEndpoint,
    private readonly timeoutMs: number,
  ) {
    this.agent = new Agent({
      keepAlive: true,
      ca: endpoint.ca,
      cert: endpoint.cert,
      key: endpoint.key,
      rejectUnauthorized: !endpoint.insecureSkipTLSVerify,
      servername: endpoint.serverName,
    });
  }

  /** POSTs `body` (JSON) to the server URL; resolves with any complete answer, rejects on transport failure. */
  post(body: string): Promise<WebhookResponse> {
    const url = this.endpoint.url;
    const where = `Post ${JSON.stringify(url.href)}`;
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = {
        'content-type': 'application/json',
        accept: 'application/json, */*',
        'content-length': Buffer.byteLength(body),
      };
      if (this.endpoint.token) headers.authorization = `Bearer ${this.endpoint.token}`;
      let settled = false;
      const fail = (err: WebhookCallError) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.destroy();
        reject(err);
      };
      const req = request(url, { method: 'POST', agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_ANSWER_BYTES) fail(new WebhookCallError(`${where}: the answer is larger than ${MAX_ANSWER_BYTES} bytes`, false));
          else chunks.push(c);
        });
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', () => fail(new WebhookCallError(`${where}: unexpected EOF`, true)));
        res.on('aborted', () => fail(new WebhookCallError(`${where}: unexpected EOF`, true)));
      });
      const timer = setTimeout(
        () => fail(new WebhookCallError(`${where}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, false)),
        this.timeoutMs,
      );
      req.on('error', (err: NodeJS.ErrnoException) => {
        const reset = err.code === 'ECONNRESET' || err.message === 'socket hang up';
        const text = reset ? 'EOF' : err.code === 'ECONNREFUSED' ? `dial tcp ${url.host}: connect: connection refused` : `tls: ${err.message}`;
        fail(new WebhookCallError(`${where}: ${text}`, reset));
      });
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
