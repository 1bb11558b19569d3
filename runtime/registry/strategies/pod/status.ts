// What kube-apiserver's ValidatePodStatusUpdate checks of the addresses a status write reports:
// pod and host IPs valid, at most one per IP family and none twice (causes at the list index,
// as kube reports them), hostIP equal to the first hostIPs entry, and a nominated node name that
// is a valid node name.

import type { StatusCause } from '../../../errors/status-error.js';
import { duplicate, invalid } from '../../../validation/field-errors.js';
import { FORMAT_CHECKS } from '../../../validation/formats.js';
import { asObject, asObjectList, asString } from '../../object.js';

type Obj = Record<string, unknown>;

function addressCauses(entries: Obj[], at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const validIP = FORMAT_CHECKS.ip;
  entries.forEach((e, i) => {
    for (const msg of validIP ? validIP(asString(e.ip)) : []) causes.push(invalid(`${at}[${i}]`, asString(e.ip), msg));
  });
  if (entries.length > 1) {
    const families = entries.map((e) => (asString(e.ip).includes(':') ? 6 : 4));
    if (entries.length > 2 || families[0] === families[1]) causes.push(invalid(at, entries, 'may specify no more than one IP for each IP family'));
  }
  const seen = new Set<string>();
  entries.forEach((e, i) => {
    if (seen.has(asString(e.ip))) causes.push(duplicate(`${at}[${i}]`, e));
    seen.add(asString(e.ip));
  });
  return causes;
}

export function podStatusCauses(status: unknown): StatusCause[] {
  const s = asObject(status);
  const causes = [...addressCauses(asObjectList(s.podIPs), 'status.podIPs'), ...addressCauses(asObjectList(s.hostIPs), 'status.hostIPs')];
  const hostIPs = asObjectList(s.hostIPs);
  if (hostIPs.length && asString(s.hostIP) !== asString(hostIPs[0].ip)) causes.push(invalid('status.hostIPs[0].ip', asString(hostIPs[0].ip), 'must be equal to `hostIP`'));
  const nominated = asString(s.nominatedNodeName);
  const subdomain = FORMAT_CHECKS.dns1123Subdomain;
  if (nominated && subdomain) for (const msg of subdomain(nominated)) causes.push(invalid('status.nominatedNodeName', nominated, msg));
  return causes;
}
