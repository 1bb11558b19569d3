// The seam between the verb handlers and content negotiation. Handlers never look at media types
// themselves: they call decodeBody / encodeResponse / watchEncoder on a Negotiator. This module
// is the JSON-only default; the codec engineer's negotiation (YAML, protobuf, Table, CBOR) plugs
// in by passing another Negotiator to createResourceHandler.

import { notAcceptable, unsupportedMediaType } from '../errors/status-error.js';
import type { KubeObject } from '../machinery/object.js';
import type { WatchEvent } from '../registry/watch.js';
import { parseJsonBody, unrecognized } from './serializers.js';

/** What a body is expected to be: the endpoint's group, version and kind. */
export interface BodyTarget {
  group: string;
  version: string;
  kind: string;
}

export interface EncodedBody {
  contentType: string;
  body: Uint8Array | string;
}

export interface WatchEncoder {
  contentType: string;
  /** One framed event, ready to write to the stream. */
  encode(event: WatchEvent): Uint8Array | string;
}

/**
 * What of the request besides Accept shapes a response: ?pretty and the User-Agent (kube-apiserver
 * indents JSON for curl, wget and browsers), ?includeObject of a Table.
 */
export interface RequestHints {
  query?: URLSearchParams;
  userAgent?: string;
}

/**
 * For bodies read into one kind whatever type they name, as kube-apiserver reads DeleteOptions:
 * judges the apiVersion and kind a body names (throwing when they cannot become the target)
 * before its fields are read; a protobuf body's fields are then read as the target's message.
 */
export type BodyKindCheck = (apiVersion: string, kind: string) => void;

export interface Negotiator {
  /** Parses a create/update body into an object; throws 415 for unknown types, 400 for bad bytes. */
  decodeBody(contentType: string | undefined, body: Uint8Array, target: BodyTarget, kindCheck?: BodyKindCheck): KubeObject;
  /**
   * Throws the 406 encodeResponse would throw for an object of the target's kind. Writes call it
   * before they write, as kube-apiserver negotiates first: a 406 after the write would hide it.
   */
  checkAccept(accept: string | undefined, target: BodyTarget): void;
  /** Serializes a response (object, list or Status); throws 406 when nothing acceptable. */
  encodeResponse(accept: string | undefined, obj: unknown, target: BodyTarget, hints?: RequestHints): EncodedBody;
  /** The encoder of a watch stream's events. */
  watchEncoder(accept: string | undefined, target: BodyTarget, hints?: RequestHints): WatchEncoder;
}

const JSON_TYPE = 'application/json';

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

function acceptsJson(accept: string | undefined): boolean {
  if (!accept) return true;
  return accept.split(',').some((part) => ['application/json', 'application/*', '*/*', ''].includes(mediaType(part)));
}

export const jsonNegotiator: Negotiator = {
  decodeBody(contentType, body, target) {
    const type = mediaType(contentType) || JSON_TYPE;
    if (type !== JSON_TYPE) throw unsupportedMediaType(type, [JSON_TYPE]);
    const value = parseJsonBody(body, Buffer.from(body).toString('utf8'), target);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw unrecognized(
        body,
        `couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
        target,
      );
    }
    return value as KubeObject;
  },
  checkAccept(accept) {
    if (!acceptsJson(accept)) throw notAcceptable([JSON_TYPE]);
  },
  encodeResponse(accept, obj) {
    if (!acceptsJson(accept)) throw notAcceptable([JSON_TYPE]);
    return { contentType: JSON_TYPE, body: JSON.stringify(obj) };
  },
  watchEncoder(accept) {
    if (!acceptsJson(accept)) throw notAcceptable([JSON_TYPE]);
    return { contentType: JSON_TYPE, encode: (event) => `${JSON.stringify(event)}\n` };
  },
};

