// The options of list and watch requests, and their validation as kube-apiserver's
// ValidateListOptions (k8s.io/apimachinery metainternalversion validation) does it: invalid
// combinations of resourceVersion, resourceVersionMatch, continue and sendInitialEvents are a
// 422 Invalid naming `ListOptions.meta.k8s.io` and the offending field.

import { badRequest, type StatusCause } from '../errors/status-error.js';
import { invalidOptions } from './delete-options.js';
import type { SelectionOptions } from './selection.js';

export const MATCH_EXACT = 'Exact';
export const MATCH_NOT_OLDER_THAN = 'NotOlderThan';

export interface ListOptions extends SelectionOptions {
  limit?: number;
  /** See WatchRequest.transient. */
  transient?: boolean;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  /** Only valid on watch (behind the WatchList gate); its mere presence on a list is refused. */
  sendInitialEvents?: boolean;
}

/** Parses a resourceVersion parameter; "" and "0" mean "any/newest" (0). */
export function parseResourceVersion(rv: string | undefined): number {
  if (rv === undefined || rv === '' || rv === '0') return 0;
  if (!/^\d+$/.test(rv)) {
    throw badRequest(`invalid resource version: metadata.resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`);
  }
  return Number(rv);
}

const forbidden = (field: string, why: string): StatusCause => ({ reason: 'FieldValueForbidden', message: `Forbidden: ${why}`, field });

const notSupported = (field: string, value: string, supported: string[]): StatusCause => ({
  reason: 'FieldValueNotSupported',
  message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
  field,
});

/** ValidateListOptions for a list (or deletecollection). */
export function validateListOptions(options: ListOptions): void {
  const causes: StatusCause[] = [];
  const match = options.resourceVersionMatch;
  if (match) {
    if (!options.resourceVersion) causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (options.continue) causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== MATCH_EXACT && match !== MATCH_NOT_OLDER_THAN) causes.push(notSupported('resourceVersionMatch', match, [MATCH_EXACT, MATCH_NOT_OLDER_THAN, '']));
    if (match === MATCH_EXACT && options.resourceVersion === '0') {
      causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (options.sendInitialEvents !== undefined) causes.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  if (causes.length) throw invalidOptions('ListOptions', causes);
}

/** validateWatchOptions: sendInitialEvents needs NotOlderThan and the WatchList gate. */
export function validateWatchOptions(options: ListOptions, watchListEnabled: boolean): void {
  const causes: StatusCause[] = [];
  const match = options.resourceVersionMatch;
  if (options.sendInitialEvents !== undefined) {
    if (match !== MATCH_NOT_OLDER_THAN) {
      causes.push(forbidden('resourceVersionMatch', `sendInitialEvents requires setting resourceVersionMatch to ${MATCH_NOT_OLDER_THAN}`));
    }
    if (!watchListEnabled) causes.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'));
  }
  if (match) {
    if (options.sendInitialEvents === undefined) {
      causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    }
    if (match !== MATCH_NOT_OLDER_THAN) causes.push(notSupported('resourceVersionMatch', match, [MATCH_NOT_OLDER_THAN]));
    if (options.continue) causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  if (causes.length) throw invalidOptions('ListOptions', causes);
}
