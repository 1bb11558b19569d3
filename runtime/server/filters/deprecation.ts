// Requests to a served deprecated kind, as kube-apiserver's installer wraps each of their routes
// (every verb, errors included, once authorization let the request through): a `299` Warning
// before any other warning, the audit annotations k8s.io/deprecated and k8s.io/removed-release,
// and the apiserver_requested_deprecated_apis gauge (through onDeprecatedRequest). What is
// deprecated is known from RequestInfo alone, so one map lookup decides; other requests pay
// nothing more.

import { addAuditAnnotation, type KubeContext, type KubeHandler } from '../context.js';
import type { RequestInfo } from '../../machinery/request-info.js';
import { warningHeaders } from '../../api/warning-headers.js';

/** The apiserver_requested_deprecated_apis labels. */
export interface DeprecatedRequestLabels {
  group: string;
  version: string;
  resource: string;
  subresource: string;
  removed_release: string;
}

export interface DeprecatedResource {
  /** deprecation.WarningMessage's text. */
  warning: string;
  /** `1.Y`, or '' when no removal release is set. */
  removedRelease: string;
}

/** Served deprecated endpoints by `<group>/<version>/<resource>[/<subresource>]`. */
export type DeprecatedResources = ReadonlyMap<string, DeprecatedResource>;

export const deprecatedResourceKey = (group: string, version: string, resource: string, subresource = ''): string =>
  subresource ? `${group}/${version}/${resource}/${subresource}` : `${group}/${version}/${resource}`;

export function withDeprecation(
  inner: KubeHandler,
  resources: DeprecatedResources,
  onDeprecatedRequest?: (labels: DeprecatedRequestLabels) => void,
): KubeHandler {
  const deprecatedRequest = async (c: KubeContext, info: RequestInfo, deprecated: DeprecatedResource): Promise<void> => {
    await inner(c);
    prependWarning(c.res.headers, deprecated.warning);
    addAuditAnnotation(c, 'k8s.io/deprecated', 'true');
    if (deprecated.removedRelease) addAuditAnnotation(c, 'k8s.io/removed-release', deprecated.removedRelease);
    onDeprecatedRequest?.({
      group: info.apiGroup,
      version: info.apiVersion,
      resource: info.resource,
      subresource: info.subresource,
      removed_release: deprecated.removedRelease,
    });
  };
  return (c) => {
    const info = c.get('requestInfo');
    if (!info.isResourceRequest || resources.size === 0) return inner(c);
    const deprecated = resources.get(deprecatedResourceKey(info.apiGroup, info.apiVersion, info.resource, info.subresource));
    if (!deprecated) return inner(c);
    return deprecatedRequest(c, info, deprecated);
  };
}

/** kube records the endpoint's warning before the handler runs, so it comes first. */
function prependWarning(headers: Headers, text: string): void {
  const existing = splitWarnings(headers.get('warning'));
  const [ours] = warningHeaders([text]);
  if (!ours) return;
  headers.delete('warning');
  headers.append('Warning', ours);
  for (const value of existing) headers.append('Warning', value);
}

/** The Warning values a Headers joined with `, `; each is `299 - "<quoted>"`, whose quotes escape any `"`. */
function splitWarnings(joined: string | null): string[] {
  if (!joined) return [];
  return joined.match(/\d{3} \S+ "(?:[^"\\]|\\.)*"(?: "[^"]*")?/g) ?? [];
}
