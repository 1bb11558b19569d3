// One kubeconfig document read into maps by name, as clientcmd's Load does: relative file
// references resolved against the folder of the file they came from (ResolveLocalPaths), each
// entry remembering that file, names unique within the document. Values are checked for their
// type only; whether a context is usable is decided once the files are merged.

import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { KubeConfigError } from './errors.js';

export interface ExecConfig {
  command: string;
  args: string[];
  env: { name: string; value: string }[];
  apiVersion: string;
  installHint?: string;
  provideClusterInfo: boolean;
  /** As written; v1beta1 defaults it to IfAvailable, v1 requires it. */
  interactiveMode?: string;
}

export interface Cluster {
  server?: string;
  certificateAuthority?: string;
  /** PEM, decoded from certificate-authority-data. */
  certificateAuthorityData?: string;
  insecureSkipTLSVerify: boolean;
  tlsServerName?: string;
  proxyUrl?: string;
  disableCompression: boolean;
  /** Extensions by name (the exec plugin's lives under client.authentication.<domain>/exec). */
  extensions: Map<string, unknown>;
  origin: string;
}

export interface AuthInfo {
  token?: string;
  tokenFile?: string;
  clientCertificate?: string;
  clientKey?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  exec?: ExecConfig;
  /** Settings this client does not implement, by their kubeconfig key, refused when the user is chosen. */
  unsupported: string[];
  origin: string;
}

export interface Context {
  cluster?: string;
  user?: string;
  namespace?: string;
  origin: string;
}

export interface Kubeconfig {
  clusters: Map<string, Cluster>;
  users: Map<string, AuthInfo>;
  contexts: Map<string, Context>;
  currentContext?: string;
}

type Obj = Record<string, unknown>;

/**
 * Reads a kubeconfig's text. `path` is the file it came from (relative references are resolved
 * against its folder); undefined for inline text, whose references stay as written, as
 * clientcmd leaves those of a config loaded from bytes.
 */
export function parseKubeconfig(text: string, path: string | undefined): Kubeconfig {
  const origin = path ?? 'inline kubeconfig';
  const fail = (message: string): never => {
    throw new KubeConfigError(`error loading config file "${origin}": ${message}`);
  };
  let doc: unknown;
  try {
    // prettyErrors off: the pretty form quotes the offending line, which may hold a token.
    doc = parse(text, { prettyErrors: false });
  } catch (err) {
    const pos = (err as { pos?: [number, number] }).pos;
    const line = pos ? text.slice(0, pos[0]).split('\n').length : undefined;
    fail(`invalid YAML${line ? ` at line ${line}` : ''}: ${(err as Error).message}`);
  }
  const config: Kubeconfig = { clusters: new Map(), users: new Map(), contexts: new Map() };
  // An empty file is an empty configuration, as clientcmd.Load treats it.
  if (doc === null || doc === undefined) return config;
  if (!isObj(doc)) return fail('not a kubeconfig: the document is not a mapping');

  const read = new Reader(fail);
  const base = path === undefined ? undefined : dirname(resolve(path));
  const local = (ref: string | undefined): string | undefined =>
    ref === undefined || ref === '' || base === undefined || isAbsolute(ref) ? ref : join(base, ref);

  config.currentContext = read.str(doc, 'current-context', '') || undefined;

  for (const [name, c, at] of read.named(doc, 'clusters', 'cluster')) {
    const extensions = new Map<string, unknown>();
    for (const [extName, ext, extAt] of read.named(c, 'extensions', 'extension', at)) {
      if (extensions.has(extName)) fail(`duplicate name "${extName}" in ${extAt}`);
      extensions.set(extName, ext);
    }
    addUnique(config.clusters, name, at, fail, {
      server: read.str(c, 'server', at),
      certificateAuthority: local(read.str(c, 'certificate-authority', at)),
      certificateAuthorityData: read.base64(c, 'certificate-authority-data', at),
      insecureSkipTLSVerify: read.bool(c, 'insecure-skip-tls-verify', at),
      tlsServerName: read.str(c, 'tls-server-name', at),
      proxyUrl: read.str(c, 'proxy-url', at),
      disableCompression: read.bool(c, 'disable-compression', at),
      extensions,
      origin,
    });
  }

  for (const [name, u, at] of read.named(doc, 'users', 'user')) {
    const unsupported = ['username', 'password', 'auth-provider', 'as', 'as-uid', 'as-groups', 'as-user-extra'].filter(
      (key) => u[key] !== undefined && u[key] !== null && u[key] !== '',
    );
    const execObj = read.obj(u, 'exec', at);
    let exec: ExecConfig | undefined;
    if (execObj) {
      const execAt = `${at}.exec`;
      const command = read.str(execObj, 'command', execAt) ?? '';
      exec = {
        // Only a command naming a path is relative to the file; a bare name is looked up in PATH.
        command: command.includes('/') ? local(command)! : command,
        args: read.list(execObj, 'args', execAt).map((a, i) => (typeof a === 'string' ? a : fail(`${execAt}.args[${i}] must be a string`))),
        env: read.list(execObj, 'env', execAt).map((e, i) => {
          const envAt = `${execAt}.env[${i}]`;
          if (!isObj(e)) return fail(`${envAt} must be a mapping`);
          return { name: read.str(e, 'name', envAt) ?? '', value: read.str(e, 'value', envAt) ?? '' };
        }),
        apiVersion: read.str(execObj, 'apiVersion', execAt) ?? '',
        installHint: read.str(execObj, 'installHint', execAt),
        provideClusterInfo: read.bool(execObj, 'provideClusterInfo', execAt),
        interactiveMode: read.str(execObj, 'interactiveMode', execAt),
      };
    }
    addUnique(config.users, name, at, fail, {
      token: read.str(u, 'token', at),
      tokenFile: local(read.str(u, 'tokenFile', at)),
      clientCertificate: local(read.str(u, 'client-certificate', at)),
      clientKey: local(read.str(u, 'client-key', at)),
      clientCertificateData: read.base64(u, 'client-certificate-data', at),
      clientKeyData: read.base64(u, 'client-key-data', at),
      exec,
      unsupported,
      origin,
    });
  }

  for (const [name, c, at] of read.named(doc, 'contexts', 'context')) {
    addUnique(config.contexts, name, at, fail, {
      cluster: read.str(c, 'cluster', at),
      user: read.str(c, 'user', at),
      namespace: read.str(c, 'namespace', at),
      origin,
    });
  }
  return config;
}

function addUnique<T>(map: Map<string, T>, name: string, at: string, fail: (m: string) => never, value: T): void {
  if (map.has(name)) fail(`duplicate name "${name}" in ${at.replace(/\[\d+\].*$/, '')}`);
  map.set(name, value);
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Typed access to the document; a wrong type fails naming the field, never quoting its value. */
class Reader {
  constructor(private readonly fail: (message: string) => never) {}

  str(o: Obj, key: string, at: string): string | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    // YAML reads `namespace: 123` or `token: true` as a number or boolean; kubeconfig's Go decoder
    // refuses them where a string belongs, and so do we.
    return this.fail(`${at ? `${at}.` : ''}${key} must be a string`);
  }

  bool(o: Obj, key: string, at: string): boolean {
    const v = o[key];
    if (v === undefined || v === null) return false;
    if (typeof v === 'boolean') return v;
    return this.fail(`${at}.${key} must be a boolean`);
  }

  obj(o: Obj, key: string, at: string): Obj | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (isObj(v)) return v;
    return this.fail(`${at}.${key} must be a mapping`);
  }

  list(o: Obj, key: string, at: string): unknown[] {
    const v = o[key];
    if (v === undefined || v === null) return [];
    if (Array.isArray(v)) return v;
    return this.fail(`${at ? `${at}.` : ''}${key} must be a list`);
  }

  /** Go's []byte in JSON: standard base64, padded; decoded to text (PEM). */
  base64(o: Obj, key: string, at: string): string | undefined {
    const s = this.str(o, key, at);
    if (s === undefined || s === '') return undefined;
    const compact = s.replace(/\s+/g, '');
    if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return this.fail(`${at}.${key} is not valid base64`);
    return Buffer.from(compact, 'base64').toString('utf8');
  }

  /** The entries of a named list (`- name: x` / `<field>: {...}`), with where each one is. */
  named(o: Obj, key: string, field: string, at = ''): [string, Obj, string][] {
    return this.list(o, key, at).map((entry, i) => {
      const where = `${at ? `${at}.` : ''}${key}[${i}]`;
      if (!isObj(entry)) return this.fail(`${where} must be a mapping`);
      const name = this.str(entry, 'name', where);
      if (!name) return this.fail(`${where} has no name`);
      const value = entry[field];
      if (field === 'extension') return [name, value as Obj, `${where}.${field}`];
      if (value !== undefined && value !== null && !isObj(value)) return this.fail(`${where}.${field} must be a mapping`);
      return [name, (value ?? {}) as Obj, `${where}.${field}`];
    });
  }
}
