// A real conversion webhook for tests: an HTTPS server on loopback with a CA of its own (the
// caBundle a CRD names), whose answer each test sets. By default it converts as a real webhook
// would: each object gets the desired apiVersion, and a `spec.from` naming the version it came
// from, so a test sees that the webhook really did the work.

import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority, issueCertificate } from '../../runtime/auth/pki.js';

type JsonObject = Record<string, unknown>;

export interface ReceivedReview {
  url: string;
  body: JsonObject;
}

/** Given the review the server received: the status and body to answer with (a string is sent as is). */
export type Answer = (review: JsonObject) => { status?: number; body: unknown; contentType?: string } | 'hang';

export interface ConversionWebhookServer {
  url: string;
  /** Base64 PEM of the CA, as `clientConfig.caBundle` holds it. */
  caBundle: string;
  received: ReceivedReview[];
  answer(fn: Answer | undefined): void;
  close(): Promise<void>;
}

/** The conversion a well-behaved webhook does. */
export function convertReview(review: JsonObject): JsonObject {
  const request = review.request as { uid: string; desiredAPIVersion: string; objects: JsonObject[] };
  return {
    apiVersion: review.apiVersion,
    kind: 'ConversionReview',
    response: {
      uid: request.uid,
      result: { status: 'Success' },
      convertedObjects: request.objects.map((o) => ({
        ...o,
        apiVersion: request.desiredAPIVersion,
        spec: { ...((o.spec as JsonObject) ?? {}), from: o.apiVersion },
      })),
    },
  };
}

export async function startConversionWebhook(names = ['127.0.0.1', 'localhost']): Promise<ConversionWebhookServer> {
  const ca = await createCertificateAuthority('conversion-webhook-ca');
  const leaf = await issueCertificate(ca, { subject: 'CN=conversion-webhook', usage: 'serverAuth', names });
  const received: ReceivedReview[] = [];
  let answer: Answer | undefined;
  const server: Server = createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonObject;
      received.push({ url: req.url ?? '', body });
      const respond: Answer = answer ?? ((r) => ({ body: convertReview(r) }));
      const out = respond(body);
      if (out === 'hang') return;
      const text = typeof out.body === 'string' ? out.body : JSON.stringify(out.body);
      res.writeHead(out.status ?? 200, { 'content-type': out.contentType ?? 'application/json' });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}/convert`,
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    received,
    answer: (fn) => {
      answer = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
