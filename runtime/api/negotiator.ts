// The full Negotiator behind the verb handlers (runtime/api/serialization.ts defines the seam):
// JSON, YAML and protobuf bodies in; JSON, YAML and protobuf responses out, with Table and
// PartialObjectMetadata transformations; JSON and protobuf watch streams. Errors (Status) are
// negotiated without transformations and fall back to JSON, as kube-apiserver writes them.

import type { PrinterColumn } from '../registry/definition.js';
import type { KubeObject } from '../machinery/object.js';
import { isPrettyPrint, negotiateErrorOutput, negotiateOutput, type ConvertTarget, type NegotiatedMediaType } from './negotiation.js';
import { asPartialObjectMetadata, asPartialObjectMetadataList } from './partial-object-metadata.js';
import type { RootSource } from './protobuf/descriptors.js';
import type { MessageNameFor } from './protobuf/envelope.js';
import { messageNameResolver } from './protobuf/message-names.js';
import type { JsonObject } from './protobuf/message-plan.js';
import { decodeInput, responseEncoder } from './serializers.js';
import type { BodyTarget, Negotiator, RequestHints } from './serialization.js';
import { buildTable, parseIncludeObject, tableWatchRenderer, type IncludeObject } from './table.js';

export interface NegotiatorOptions {
  /** Protobuf descriptors (generated/protobuf/descriptors.json); without them protobuf is not offered. */
  root?: RootSource;
  /** The printer columns of an endpoint's kind; undefined when it cannot print a Table. */
  columnsFor?: (target: BodyTarget) => PrinterColumn[] | undefined;
  /** The CBORServingAndStorage gate: application/cbor is served and accepted. */
  cbor?: boolean;
}

const isStatus = (obj: unknown): boolean => (obj as JsonObject | null)?.kind === 'Status';

const prettyFor = (hints: RequestHints | undefined): boolean => isPrettyPrint(hints?.query?.get('pretty'), hints?.userAgent);

/** ?includeObject of a Table request, checked only when a Table is what the client gets. */
const includeObjectOf = (hints: RequestHints | undefined): IncludeObject => parseIncludeObject(hints?.query?.get('includeObject'));

function transform(obj: JsonObject, convert: ConvertTarget | undefined, columns: PrinterColumn[] | undefined, hints?: RequestHints): JsonObject {
  if (!convert || isStatus(obj)) return obj;
  switch (convert.kind) {
    case 'Table':
      return buildTable(columns ?? [], obj, { version: convert.version, includeObject: includeObjectOf(hints) }) as unknown as JsonObject;
    case 'PartialObjectMetadata':
      return asPartialObjectMetadata(obj, convert.version);
    default:
      return asPartialObjectMetadataList(obj, convert.version);
  }
}

export function createNegotiator(options: NegotiatorOptions = {}): Negotiator {
  const { root } = options;
  const messageNameFor = root ? messageNameResolver(root) : () => undefined;
  const apiVersionOf = (t: BodyTarget) => (t.group ? `${t.group}/${t.version}` : t.version);
  const protobufSupported = (t: BodyTarget) => messageNameFor(apiVersionOf(t), t.kind) !== undefined;
  const messageOf = (obj: JsonObject) => messageNameFor(String(obj.apiVersion ?? ''), String(obj.kind ?? ''));

  function negotiate(accept: string | undefined, target: BodyTarget, streaming: boolean, pretty = false, columns = options.columnsFor?.(target)): NegotiatedMediaType {
    return negotiateOutput(accept, { streaming, protobufSupported: protobufSupported(target), tableSupported: columns !== undefined, pretty, cbor: options.cbor });
  }

  return {
    decodeBody(contentType, body, target, kindCheck) {
      const bodyMessage: MessageNameFor = kindCheck
        ? (apiVersion, kind) => {
            kindCheck(apiVersion, kind);
            return messageNameFor(apiVersionOf(target), target.kind);
          }
        : messageNameFor;
      return decodeInput(contentType, body, {
        root,
        messageNameFor: bodyMessage,
        protobufSupported: protobufSupported(target),
        cbor: options.cbor,
        typed: { apiVersion: apiVersionOf(target), kind: target.kind },
      }) as KubeObject;
    },

    checkAccept(accept, target) {
      negotiate(accept, target, false);
    },

    encodeResponse(accept, obj, target, hints) {
      const value = obj as JsonObject;
      const pretty = prettyFor(hints);
      // Looked up once: whether a Table can be offered, and its columns when one is.
      const columns = options.columnsFor?.(target);
      const negotiated = isStatus(value)
        ? negotiateErrorOutput(accept, { protobufSupported: protobufSupported(target), pretty, cbor: options.cbor })
        : negotiate(accept, target, false, pretty, columns);
      const result = transform(value, negotiated.convert, columns, hints);
      const body = responseEncoder(negotiated, root).encode(result, messageOf(result));
      return { contentType: negotiated.contentType, body };
    },

    watchEncoder(accept, target, hints) {
      const negotiated = negotiate(accept, target, true);
      const encoder = responseEncoder(negotiated, root);
      const { convert } = negotiated;
      const columns = options.columnsFor?.(target) ?? [];
      // A Table watch sends column definitions with its first event only.
      const tables =
        convert?.kind === 'Table'
          ? tableWatchRenderer(columns, { version: convert.version, includeObject: includeObjectOf(hints) })
          : undefined;
      return {
        contentType: negotiated.contentType,
        encode(event) {
          const obj = event.object as JsonObject;
          let result = obj;
          if (!isStatus(obj) && convert) {
            result = tables ? (tables.render(obj) as unknown as JsonObject) : asPartialObjectMetadata(obj, convert.version);
          }
          return encoder.encodeWatchEvent(event.type, result, messageOf(result));
        },
      };
    },
  };
}
