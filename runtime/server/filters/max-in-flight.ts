// A simple cap on concurrent requests, as kube-apiserver's --max-requests-inflight and
// --max-mutating-requests-inflight set it. Long-running requests and system:masters are not
// counted. Over the cap the client gets 429 with Retry-After: 1, and retries.

import { StatusError } from '../../errors/status-error.js';
import { SYSTEM_MASTERS } from '../../auth/user.js';
import type { KubeMiddleware } from '../context.js';
import { isLongRunning, isMutating } from '../request-info.js';

export interface InFlightLimits {
  /** 0 disables the limit. */
  nonMutating: number;
  mutating: number;
}

export const DEFAULT_IN_FLIGHT_LIMITS: InFlightLimits = { nonMutating: 400, mutating: 200 };

export function tooManyRequestsError(): StatusError {
  return new StatusError(
    429,
    'TooManyRequests',
    'Too many requests, please try again later.',
    { retryAfterSeconds: 1 },
    { 'Retry-After': '1' },
  );
}

export function withMaxInFlight(limits: InFlightLimits): KubeMiddleware {
  const inFlight = { nonMutating: 0, mutating: 0 };
  return async (c, next) => {
    const info = c.get('requestInfo');
    if (isLongRunning(info) || c.get('user').groups.includes(SYSTEM_MASTERS)) return next();
    const kind = isMutating(info) ? 'mutating' : 'nonMutating';
    const limit = limits[kind];
    if (limit > 0 && inFlight[kind] >= limit) throw tooManyRequestsError();
    inFlight[kind]++;
    try {
      await next();
    } finally {
      inFlight[kind]--;
    }
  };
}
