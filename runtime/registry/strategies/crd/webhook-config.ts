// The checks apiserver's util/webhook runs on a webhook's client config, which the conversion
// webhook of a CRD shares with admission webhooks: an https URL with a host and no user, query or
// fragment (net/url's view of it), or a Service with a name, namespace, port and a path of DNS
// subdomain segments; and a CA bundle client-go can build a root pool from.

import { X509Certificate } from 'node:crypto';
import type { StatusCause } from '../../../errors/status-error.js';
import { isDNS1123Subdomain } from '../../../machinery/formats.js';
import { goQuote } from '../../../machinery/go-format.js';
import { invalid, required } from '../../../validation/field-errors.js';
import { goByteSlice } from './go-syntax.js';

const FORM = '; desired format: https://host[/path]';

interface GoURL {
  scheme: string;
  host: string;
  user?: string;
  rawQuery: string;
  fragment: string;
}

/** net/url.Parse, as far as the webhook checks look: the parts, or Go's error text. */
function parseGoURL(raw: string): GoURL | string {
  const fail = (why: string): string => `parse ${goQuote(raw)}: ${why}`;
  if (/[\x00-\x1f\x7f]/.test(raw)) return fail('net/url: invalid control character in URL');
  let rest = raw;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  let scheme = '';
  const schemeMatch = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (schemeMatch) {
    scheme = schemeMatch[1].toLowerCase();
    rest = rest.slice(schemeMatch[0].length);
  } else if (rest.startsWith(':')) {
    return fail('missing protocol scheme');
  } else if (/^[^/?]*:/.test(rest)) {
    return fail('first path segment in URL cannot contain colon');
  }
  let rawQuery = '';
  const question = rest.indexOf('?');
  if (question >= 0) {
    rawQuery = rest.slice(question + 1);
    rest = rest.slice(0, question);
  }
  let host = '';
  let user: string | undefined;
  if (rest.startsWith('//')) {
    const authorityEnd = rest.indexOf('/', 2);
    let authority = authorityEnd < 0 ? rest.slice(2) : rest.slice(2, authorityEnd);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      user = authority.slice(0, at);
      authority = authority.slice(at + 1);
    }
    const port = /:([^\]]*)$/.exec(authority);
    if (port && !/^\d*$/.test(port[1])) return fail(`invalid port ${goQuote(`:${port[1]}`)} after host`);
    host = authority;
  }
  return { scheme, host, ...(user !== undefined ? { user } : {}), rawQuery, fragment };
}

/** webhook.ValidateWebhookURL with https forced. */
export function webhookURLCauses(url: string, at: string): StatusCause[] {
  const u = parseGoURL(url);
  if (typeof u === 'string') return [required(at, `url must be a valid URL: ${u}${FORM}`)];
  const causes: StatusCause[] = [];
  if (u.scheme !== 'https') causes.push(invalid(at, u.scheme, `'https' is the only allowed URL scheme${FORM}`));
  if (!u.host) causes.push(invalid(at, u.host, `host must be specified${FORM}`));
  if (u.user !== undefined) causes.push(invalid(at, u.user, 'user information is not permitted in the URL'));
  if (u.fragment) causes.push(invalid(at, u.fragment, 'fragments are not permitted in the URL'));
  if (u.rawQuery) causes.push(invalid(at, u.rawQuery, 'query parameters are not permitted in the URL'));
  return causes;
}

/** webhook.ValidateWebhookService. */
export function webhookServiceCauses(service: { name: string; namespace: string; path?: string; port: number }, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!service.name) causes.push(required(`${at}.name`, 'service name is required'));
  if (!service.namespace) causes.push(required(`${at}.namespace`, 'service namespace is required'));
  if (!(service.port >= 1 && service.port <= 65535)) causes.push(invalid(`${at}.port`, service.port, 'port is not valid: must be between 1 and 65535, inclusive'));
  const path = service.path;
  if (path === undefined || path === '/' || path === '') return causes;
  if (path === '//') return [...causes, invalid(`${at}.path`, path, 'segment[0] may not be empty')];
  if (!path.startsWith('/')) causes.push(invalid(`${at}.path`, path, "must start with a '/'"));
  let check = path.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (!step) {
      causes.push(invalid(`${at}.path`, path, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of isDNS1123Subdomain(step)) causes.push(invalid(`${at}.path`, path, `segment[${i}]: ${failure}`));
  });
  return causes;
}

const PEM_BLOCK = /^-----BEGIN ([^\n-]+)-----\r?\n([\s\S]*?)-----END \1-----[^\n]*\r?\n?/;

/** One PEM block at the start of `text` (after blank space), as encoding/pem.Decode finds it. */
function decodePEM(text: string): { type: string; headers: boolean; der: Buffer; rest: string } | undefined {
  const start = text.indexOf('-----BEGIN ');
  if (start < 0) return undefined;
  const m = PEM_BLOCK.exec(text.slice(start));
  if (!m) return undefined;
  const body = m[2];
  return { type: m[1], headers: /^[^\n]*:/.test(body), der: Buffer.from(body.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64'), rest: text.slice(start + m[0].length) };
}

function parses(der: Buffer): boolean {
  try {
    new X509Certificate(der);
    return true;
  } catch {
    return false;
  }
}

/** Why client-go could not build a root pool from the bundle (its createErrorParsingCAData), or undefined. */
function caBundleError(bundle: Buffer): string | undefined {
  const text = bundle.toString('latin1');
  let rest = text;
  for (let block = decodePEM(rest); block; block = decodePEM(rest)) {
    if (block.type === 'CERTIFICATE' && !block.headers && parses(block.der)) return undefined;
    rest = block.rest;
  }
  rest = text;
  while (rest.length > 0) {
    const block = decodePEM(rest);
    if (!block) return 'unable to parse bytes as PEM block';
    rest = block.rest;
    if (block.type !== 'CERTIFICATE' || block.headers) continue;
    if (!parses(block.der)) return 'failed to parse certificate: x509: malformed certificate';
  }
  return 'no valid certificate authority data seen';
}

/** webhook.ValidateCABundle: the bundle must give client-go at least one root certificate. */
export function caBundleCauses(caBundle: string, at: string): StatusCause[] {
  const bytes = Buffer.from(caBundle, 'base64');
  const why = caBundleError(bytes);
  if (!why) return [];
  return [{ reason: 'FieldValueInvalid', message: `Invalid value: ${goByteSlice(bytes)}: unable to load root certificates: ${why}`, field: at }];
}
