// ValidateCustomResourceDefinitionNames: the rules spec.names and status.acceptedNames share.
// Plural, singular, short names and categories are DNS-1035 labels; kind and listKind are too
// once lowercased, and differ from each other (lists would be ambiguous otherwise).

import type { StatusCause } from '../../../errors/status-error.js';
import { isDNS1035Label } from '../../../machinery/formats.js';
import { asList, asObject, asString } from '../../../machinery/object.js';
import type { JsonObject } from '../../../machinery/json-values.js';
import { invalid } from '../../../validation/field-errors.js';

export function namesCauses(value: unknown, at: string): StatusCause[] {
  const names: JsonObject = asObject(value);
  const causes: StatusCause[] = [];
  const label = (field: string, v: string): void => {
    const errs = isDNS1035Label(v);
    if (v && errs.length) causes.push(invalid(`${at}.${field}`, v, errs.join(',')));
  };
  const mixedCase = (field: string, v: string): void => {
    const errs = isDNS1035Label(v.toLowerCase());
    if (v && errs.length) causes.push(invalid(`${at}.${field}`, v, `may have mixed case, but should otherwise match: ${errs.join(',')}`));
  };
  const kind = asString(names.kind);
  const listKind = asString(names.listKind);
  label('plural', asString(names.plural));
  label('singular', asString(names.singular));
  mixedCase('kind', kind);
  mixedCase('listKind', listKind);
  asList(names.shortNames).forEach((s, i) => {
    const errs = isDNS1035Label(asString(s));
    if (errs.length) causes.push(invalid(`${at}.shortNames[${i}]`, asString(s), errs.join(',')));
  });
  if (kind && kind === listKind) causes.push(invalid(`${at}.listKind`, listKind, 'kind and listKind may not be the same'));
  asList(names.categories).forEach((c, i) => {
    const errs = isDNS1035Label(asString(c));
    if (errs.length) causes.push(invalid(`${at}.categories[${i}]`, asString(c), errs.join(',')));
  });
  return causes;
}
