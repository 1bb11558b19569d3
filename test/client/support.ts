// A real server on memory storage for one test file, and typed clients for it built from a
// ClientConfig made by hand (the configuration half, client/config/, is tested on its own).
import { afterAll, beforeAll } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import type { StartServerOptions } from '../../runtime/server/options.js';
import { kubeconfigCredentials } from '../support/https-client.js';
import { createClient, type Client } from '../../client/index.js';
import type { ClientConfig, Credentials, CredentialSource } from '../../client/config/types.js';

/** Hands out the same credentials every time and counts what it was told. */
export class StaticCredentials implements CredentialSource {
  invalidated: Credentials[] = [];
  constructor(private readonly credentials: Credentials) {}
  async get(): Promise<Credentials> {
    return this.credentials;
  }
  invalidate(used: Credentials): void {
    this.invalidated.push(used);
  }
}

/** The admin's ClientConfig for a running server, optionally at another address (a proxy). */
export function adminConfig(server: RunningServer, url = server.url): ClientConfig {
  const creds = kubeconfigCredentials(server.kubeconfig);
  return {
    server: url,
    tls: { ca: creds.ca },
    credentials: new StaticCredentials({ clientCertificate: { cert: creds.cert as string, key: creds.key as string } }),
    namespace: 'default',
    source: 'inline',
  };
}

export interface ClientServer {
  readonly server: RunningServer;
  readonly client: Client;
}

export function useClientServer(options: Partial<StartServerOptions> = {}): ClientServer {
  let server: RunningServer | undefined;
  let client: Client | undefined;
  beforeAll(async () => {
    server = await startServer({ storage: 'memory', ...options });
    client = createClient(adminConfig(server));
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });
  return {
    get server() {
      return server as RunningServer;
    },
    get client() {
      return client as Client;
    },
  };
}
