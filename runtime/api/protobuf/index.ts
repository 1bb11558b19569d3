// The protobuf wire format of the API: see envelope.ts for the body layout and
// message-plan.ts for the JSON <-> message mapping rules.

export { encodeMessage, decodeMessage, planFor, type JsonObject } from './message-plan.js';
export {
  PROTOBUF_MAGIC,
  STATUS_MESSAGE,
  WATCH_EVENT_MESSAGE,
  decodeObject,
  decodeWatchEvent,
  encodeObject,
  encodeStatus,
  encodeWatchEventFrame,
  splitFrames,
  type DecodedObject,
  type MessageNameFor,
} from './envelope.js';
export { messageNameResolver, packageFor } from './message-names.js';
export { LazyRoot, loadDescriptorRoot, rootOf, type RootSource } from './descriptors.js';
