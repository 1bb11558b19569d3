// A NodeSelector's rules (kube-apiserver's ValidateNodeSelector): at least one term; each
// expression's operator decides how many values it takes; keys are label names, values label
// values; field expressions may only name metadata.name. Shared by a PersistentVolume's
// nodeAffinity.required and, later, a Pod's node affinity.

import type { StatusCause } from '../errors/status-error.js';
import * as fe from './field-errors.js';
import { isDNS1123Subdomain, isLabelValue, isQualifiedName } from '../machinery/formats.js';
import { asList, asObject, asString } from '../machinery/json-values.js';

type Obj = Record<string, unknown>;

function labelRequirement(req: Obj, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const values = asList(req.values);
  const operator = asString(req.operator);
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) causes.push(fe.required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) causes.push(fe.forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) causes.push(fe.required(`${path}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      causes.push(fe.invalid(`${path}.operator`, operator, 'not a valid selector operator'));
  }
  const key = asString(req.key);
  causes.push(...isQualifiedName(key).map((m) => fe.invalid(`${path}.key`, key, m)));
  values.forEach((v, i) => causes.push(...isLabelValue(asString(v)).map((m) => fe.invalid(`${path}.values[${i}]`, asString(v), m))));
  return causes;
}

function fieldRequirement(req: Obj, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const values = asList(req.values);
  const operator = asString(req.operator);
  if (operator === 'In' || operator === 'NotIn') {
    if (values.length !== 1) causes.push(fe.required(`${path}.values`, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
  } else {
    causes.push(fe.invalid(`${path}.operator`, operator, 'not a valid selector operator'));
  }
  const key = asString(req.key);
  if (key !== 'metadata.name') causes.push(fe.invalid(`${path}.key`, key, 'not a valid field selector key'));
  else values.forEach((v, i) => causes.push(...isDNS1123Subdomain(asString(v)).map((m) => fe.invalid(`${path}.values[${i}]`, asString(v), m))));
  return causes;
}

export function validateNodeSelector(selector: unknown, path: string): StatusCause[] {
  const terms = asList(asObject(selector).nodeSelectorTerms);
  const termsPath = `${path}.nodeSelectorTerms`;
  if (terms.length === 0) return [fe.required(termsPath, 'must have at least one node selector term')];
  return terms.flatMap((term, i) => {
    const t = asObject(term);
    return [
      ...asList(t.matchExpressions).flatMap((r, j) => labelRequirement(asObject(r), `${termsPath}[${i}].matchExpressions[${j}]`)),
      ...asList(t.matchFields).flatMap((r, j) => fieldRequirement(asObject(r), `${termsPath}[${i}].matchFields[${j}]`)),
    ];
  });
}
