// /livez, /readyz and /healthz as kube-apiserver serves them: `ok` when every check passes;
// `?verbose` lists each check ([+]name ok) and the verdict; `?exclude=name` skips a check; a
// failing check gives 500 with the list (reasons withheld, since the endpoint is public).
// /<endpoint>/<check> runs one check. Which checks exist is the caller's choice.

import type { KubeContext } from './context.js';
import { plainTextError } from './status-response.js';
import { Response } from '../machinery/http/response.js';

export interface HealthCheck {
  name: string;
  /** Resolves when healthy; throws (or rejects) with the reason otherwise. */
  check(): void | Promise<void>;
}

export interface HealthChecks {
  livez: HealthCheck[];
  readyz: HealthCheck[];
  healthz: HealthCheck[];
}

export const pingCheck: HealthCheck = { name: 'ping', check: () => {} };
/** kube-apiserver's `log` check watches that logging is not blocked; our logging is synchronous stderr. */
export const logCheck: HealthCheck = { name: 'log', check: () => {} };

/** A readyz check that fails once the server starts shutting down, so load balancers drain it. */
export function shutdownCheck(isShuttingDown: () => boolean): HealthCheck {
  return {
    name: 'shutdown',
    check: () => {
      if (isShuttingDown()) throw new Error('process is shutting down');
    },
  };
}

const TEXT_HEADERS = { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' };

async function runCheck(check: HealthCheck): Promise<Error | undefined> {
  try {
    await check.check();
    return undefined;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

async function rootHealth(endpoint: string, checks: HealthCheck[], url: URL): Promise<Response> {
  const excluded = new Set(url.searchParams.getAll('exclude'));
  let output = '';
  let failed = false;
  for (const check of checks) {
    if (excluded.has(check.name)) {
      excluded.delete(check.name);
      output += `[+]${check.name} excluded: ok\n`;
      continue;
    }
    const err = await runCheck(check);
    if (err) {
      failed = true;
      output += `[-]${check.name} failed: reason withheld\n`;
    } else {
      output += `[+]${check.name} ok\n`;
    }
  }
  if (excluded.size > 0) {
    const names = [...excluded].sort().map((n) => JSON.stringify(n)).join(',');
    output += `warn: some health checks cannot be excluded: no matches for ${names}\n`;
  }
  if (failed) return plainTextError(500, `${output}${endpoint} check failed`);
  if (!url.searchParams.has('verbose')) return new Response('ok', { headers: TEXT_HEADERS });
  return new Response(`${output}${endpoint} check passed\n`, { headers: TEXT_HEADERS });
}

/** The health endpoints by path: each root with its checks, and each check on its own. */
export function healthEndpoints(checks: HealthChecks): Map<string, (c: KubeContext) => Promise<Response>> {
  const endpoints = new Map<string, (c: KubeContext) => Promise<Response>>();
  for (const endpoint of ['livez', 'readyz', 'healthz'] as const) {
    const list = checks[endpoint].length > 0 ? checks[endpoint] : [pingCheck];
    endpoints.set(`/${endpoint}`, (c) => rootHealth(endpoint, list, new URL(c.req.url)));
    for (const check of list) {
      // Two checks of one name: the first answers, as the first of two routes would.
      if (endpoints.has(`/${endpoint}/${check.name}`)) continue;
      endpoints.set(`/${endpoint}/${check.name}`, async () => {
        const err = await runCheck(check);
        return err ? plainTextError(500, `internal server error: ${err.message}`) : new Response('ok', { headers: TEXT_HEADERS });
      });
    }
  }
  return endpoints;
}
