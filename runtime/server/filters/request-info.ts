// Parses the request's RequestInfo once, for every later filter and the handler.

import { badRequest } from '../../errors/status-error.js';
import { requestTarget, type KubeHandler } from '../context.js';
import { newRequestInfo, RequestPathError } from '../../machinery/request-info.js';

export function withRequestInfo(inner: KubeHandler): KubeHandler {
  return (c) => {
    try {
      c.set('requestInfo', newRequestInfo(c.req.method, requestTarget(c)));
    } catch (err) {
      if (err instanceof RequestPathError) throw badRequest(err.message);
      throw err;
    }
    return inner(c);
  };
}
