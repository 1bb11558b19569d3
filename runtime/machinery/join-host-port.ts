// Go's net.JoinHostPort: "host:port", an IPv6 address in brackets.

export function joinHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
