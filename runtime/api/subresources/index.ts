// Virtual subresources: a spec names a handler (`handler: eviction`) for a subresource that
// stands for an operation on its parent rather than stored state. The resource handler routes
// such requests here, after its verb checks, with the subresource's kind as the body target.

import type { HandlerContext } from '../handlers/context.js';
import { evictPod } from './eviction.js';
import { serveScale } from './scale.js';

export type SubresourceHandler = (ctx: HandlerContext) => Promise<Response>;

export const SUBRESOURCE_HANDLERS: Record<string, SubresourceHandler> = {
  eviction: evictPod,
  scale: serveScale,
};
