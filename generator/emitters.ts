// Every emitter, by the artifact it emits. Each is a pure function of the model.

import type { Emitter } from './output.js';
import { emitRegistry } from './emit/registry.js';
import { emitValidators } from './emit/validators.js';
import { emitProtobuf } from './emit/protobuf.js';
import { emitDiscovery } from './emit/discovery.js';
import { emitOpenAPI } from './emit/openapi.js';
import { emitTypes } from './emit/types.js';
import { emitClient } from './emit/client.js';
import { emitLifecycle } from './emit/lifecycle.js';

export const EMITTERS: Record<string, Emitter> = {
  validators: emitValidators,
  registry: emitRegistry,
  protobuf: emitProtobuf,
  discovery: emitDiscovery,
  openapi: emitOpenAPI,
  types: emitTypes,
  client: emitClient,
  lifecycle: emitLifecycle,
};
