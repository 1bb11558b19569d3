// The contract between the client's configuration (kubeconfig files, in-cluster configuration,
// credential plugins) and its transport (requests, watches, retries). Configuration resolves
// *where* and *as whom*; the transport asks for credentials before each request and tells the
// source when the server answered 401, so a plugin can be run again.

/** What a credential source hands the transport for one request. */
export interface Credentials {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** PEM client certificate and key for the TLS handshake. */
  clientCertificate?: { cert: string; key: string };
}

export interface CredentialSource {
  /**
   * Credentials for the next request. Cheap when cached (a static token, or a plugin's answer
   * that has not expired); runs the plugin or re-reads a token file when it must.
   */
  get(signal?: AbortSignal): Promise<Credentials>;
  /**
   * The server answered 401 to a request made with `used`: forget them, so the next get() runs
   * the plugin again (client-go retries such a request once).
   */
  invalidate(used: Credentials): void;
}

export interface TlsOptions {
  /** PEM bundle of the CAs that verify the server; undefined means the system's roots. */
  ca?: string;
  insecureSkipTLSVerify?: boolean;
  /** Overrides the name checked against the server's certificate (kubeconfig tls-server-name). */
  serverName?: string;
}

/** A resolved client configuration: one cluster, one user, one default namespace. */
export interface ClientConfig {
  /** Base URL of the API server, e.g. https://127.0.0.1:6443 (no trailing slash). */
  server: string;
  tls: TlsOptions;
  credentials: CredentialSource;
  /** The context's namespace, or `default`. */
  namespace: string;
  /** Where this came from, for error messages: a file path, `in-cluster`, or `inline`. */
  source: string;
  /** The kubeconfig context name, when it came from one. */
  context?: string;
}
