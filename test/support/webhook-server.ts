// A real authorization webhook for tests: HTTPS on loopback with its own CA, answering
// SubjectAccessReviews with whatever the test's `answer` decides, counting the calls it gets and
// checking the caller's credential (a client certificate issued by its CA, or a bearer token).
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCertificateAuthority, issueCertificate, type KeyedCert } from '../../runtime/auth/pki.js';

export interface Review {
  apiVersion: string;
  kind: string;
  spec: Record<string, unknown>;
}

/** What the webhook does with one review: a status to send, or a raw behaviour. */
export type Answer =
  | { status: Record<string, unknown>; delayMs?: number }
  | { hang: true }
  | { close: true }
  | { http: number; body: string; contentType?: string };

export interface WebhookServer {
  url: string;
  ca: KeyedCert;
  /** Every review received, in order. */
  reviews: Review[];
  /** Reviews whose caller presented neither the client certificate nor the token. */
  unauthenticated: number;
  answer: (review: Review) => Answer;
  /** Writes a kubeconfig for this webhook into `dir`, with a client certificate or a token. */
  kubeconfig(dir: string, name: string, auth: 'cert' | 'token'): Promise<string>;
  close(): Promise<void>;
}

export const WEBHOOK_TOKEN = 'webhook-test-token';

const b64 = (s: string) => Buffer.from(s).toString('base64');

export async function startWebhookServer(answer: WebhookServer['answer']): Promise<WebhookServer> {
  const ca = await createCertificateAuthority('webhook-ca');
  const serving = await issueCertificate(ca, { subject: 'CN=webhook', usage: 'serverAuth', names: ['127.0.0.1'] });
  const client = await issueCertificate(ca, { subject: 'CN=kube-apiserver', usage: 'clientAuth' });
  const sockets = new Set<Socket>();
  const state: WebhookServer = {
    url: '',
    ca,
    reviews: [],
    unauthenticated: 0,
    answer,
    async kubeconfig(dir, name, auth) {
      const user = auth === 'cert' ? { 'client-certificate-data': b64(client.certPem), 'client-key-data': b64(client.keyPem) } : { token: WEBHOOK_TOKEN };
      const path = join(dir, `${name}.kubeconfig`);
      writeFileSync(
        path,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [{ name: 'webhook', cluster: { server: `${state.url}/authorize`, 'certificate-authority-data': b64(ca.certPem) } }],
          users: [{ name: 'apiserver', user }],
          contexts: [{ name: 'webhook', context: { cluster: 'webhook', user: 'apiserver' } }],
          'current-context': 'webhook',
        }),
      );
      return path;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const socket = req.socket as TLSSocket;
      const byCert = socket.authorized && socket.getPeerCertificate()?.subject?.CN === 'kube-apiserver';
      const byToken = req.headers.authorization === `Bearer ${WEBHOOK_TOKEN}`;
      if (!byCert && !byToken) {
        state.unauthenticated++;
        res.writeHead(401).end();
        return;
      }
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
      state.reviews.push(review);
      const a = state.answer(review);
      if ('hang' in a) return;
      if ('close' in a) {
        req.socket.destroy();
        return;
      }
      if ('http' in a) {
        res.writeHead(a.http, { 'content-type': a.contentType ?? 'text/html' }).end(a.body);
        return;
      }
      const send = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'SubjectAccessReview', status: a.status }));
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  };
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false }, handle);
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  state.url = `https://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return state;
}
