// kube's URL library (apiserver pkg/cel/library/urls.go): url() and isURL() accept what Go's
// url.ParseRequestURI accepts (an absolute URI, or an absolute path), and the accessors getScheme,
// getHost, getHostname, getPort, getEscapedPath and getQuery.

import type { Environment } from '@marcbachmann/cel-js';

export class KubeURL {
  constructor(
    readonly scheme: string,
    readonly host: string,
    readonly escapedPath: string,
    readonly rawQuery: string,
  ) {}
  toString(): string {
    return `${this.scheme ? `${this.scheme}://` : ''}${this.host}${this.escapedPath}${this.rawQuery ? `?${this.rawQuery}` : ''}`;
  }
}

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/s;

/** url.ParseRequestURI, as far as rules can tell: undefined when Go refuses the string. */
export function parseRequestURI(s: string): KubeURL | undefined {
  // Go refuses control characters anywhere; spaces are fine outside the host.
  if (s === '' || /[\x00-\x1f\x7f]/.test(s)) return undefined;
  const hash = s.indexOf('#');
  const text = hash >= 0 ? s.slice(0, hash) : s;
  let scheme = '';
  let rest = text;
  if (!text.startsWith('/')) {
    const m = SCHEME.exec(text);
    if (!m) return undefined;
    scheme = m[1].toLowerCase();
    rest = m[2];
  }
  const q = rest.indexOf('?');
  const rawQuery = q >= 0 ? rest.slice(q + 1) : '';
  rest = q >= 0 ? rest.slice(0, q) : rest;
  let host = '';
  if (scheme && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash >= 0 ? rest.slice(2, slash) : rest.slice(2);
    rest = slash >= 0 ? rest.slice(slash) : '';
    host = authority.includes('@') ? authority.slice(authority.lastIndexOf('@') + 1) : authority;
    if (host.startsWith('[') ? !/^\[[0-9a-fA-F:.%a-zA-Z]+\](:\d*)?$/.test(host) : /[^a-zA-Z0-9\-._~!$&'()*+,;=:%]/.test(host)) return undefined;
    if (!host.startsWith('[') && (host.match(/:/g) ?? []).length > 1) return undefined;
    const port = host.startsWith('[') ? host.slice(host.indexOf(']') + 1) : host.includes(':') ? host.slice(host.indexOf(':')) : '';
    if (port !== '' && !/^:\d*$/.test(port)) return undefined;
  } else if (scheme && !rest.startsWith('/') && rest !== '') {
    // An opaque URI (mailto:x) is fine to Go; it has no path.
    return new KubeURL(scheme, '', '', rawQuery);
  }
  if (/%(?![0-9a-fA-F]{2})/.test(rest)) return undefined;
  return new KubeURL(scheme, host, escapePath(rest), rawQuery);
}

/** URL.EscapedPath: characters a path may not hold as they are, percent-encoded. */
function escapePath(path: string): string {
  return path.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/gu, (c) => encodeURIComponent(c));
}

function hostname(u: KubeURL): string {
  if (u.host.startsWith('[')) return u.host.slice(1, u.host.indexOf(']'));
  const colon = u.host.indexOf(':');
  return colon >= 0 ? u.host.slice(0, colon) : u.host;
}

function port(u: KubeURL): string {
  const after = u.host.startsWith('[') ? u.host.slice(u.host.indexOf(']') + 1) : u.host.slice(Math.max(0, u.host.indexOf(':')));
  return after.startsWith(':') ? after.slice(1) : '';
}

function query(u: KubeURL): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [k, v] of new URLSearchParams(u.rawQuery)) out.set(k, [...(out.get(k) ?? []), v]);
  return out;
}

export function registerURLs(env: Environment): void {
  const T = 'kubernetes.URL';
  env.registerType(T, KubeURL);
  env.registerFunction(`url(string): ${T}`, (s: string) => {
    const u = parseRequestURI(s);
    if (!u) throw new Error(`URL parse error during conversion from string: parse ${JSON.stringify(s)}: invalid URI for request`);
    return u;
  });
  env.registerFunction('isURL(string): bool', (s: string) => parseRequestURI(s) !== undefined);
  env.registerFunction(`${T}.getScheme(): string`, (u: KubeURL) => u.scheme);
  env.registerFunction(`${T}.getHost(): string`, (u: KubeURL) => u.host);
  env.registerFunction(`${T}.getHostname(): string`, hostname);
  env.registerFunction(`${T}.getPort(): string`, port);
  env.registerFunction(`${T}.getEscapedPath(): string`, (u: KubeURL) => u.escapedPath);
  env.registerFunction(`${T}.getQuery(): map<string, list<string>>`, query);
}
