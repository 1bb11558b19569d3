// What kube-apiserver's ValidatePodStatusUpdate checks of the addresses a status write reports:
// pod and host IPs valid, at most one per IP family and none twice (causes at the list index,
// as kube reports them), hostIP equal to the first hostIPs entry, and a nominated node name that
// is a valid node name.

import type { StatusCause } from '../../../errors/status-error.js';
import { duplicate, invalid } from '../../../validation/field-errors.js';
import { FORMAT_CHECKS } from '../../../validation/formats.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function addressCauses(entries: Obj[], at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const validIP = FORMAT_CHECKS.ip;
  entries.forEach((e, i) => {
    for (const msg of validIP ? validIP(str(e.ip)) : []) causes.push(invalid(`${at}[${i}]`, str(e.ip), msg));
  });
  if (entries.length > 1) {
    const families = entries.map((e) => (str(e.ip).includes(':') ? 6 : 4));
    if (entries.length > 2 || families[0] === families[1]) causes.push(invalid(at, entries, 'may specify no more than one IP for each IP family'));
  }
  const seen = new Set<string>();
  entries.forEach((e, i) => {
    if (seen.has(str(e.ip))) causes.push(duplicate(`${at}[${i}]`, e));
    seen.add(str(e.ip));
  });
  return causes;
}

export function podStatusCauses(status: unknown): StatusCause[] {
  const s = obj(status);
  const causes = [...addressCauses(list(s.podIPs), 'status.podIPs'), ...addressCauses(list(s.hostIPs), 'status.hostIPs')];
  const hostIPs = list(s.hostIPs);
  if (hostIPs.length && str(s.hostIP) !== str(hostIPs[0].ip)) causes.push(invalid('status.hostIPs[0].ip', str(hostIPs[0].ip), 'must be equal to `hostIP`'));
  const nominated = str(s.nominatedNodeName);
  const subdomain = FORMAT_CHECKS.dns1123Subdomain;
  if (nominated && subdomain) for (const msg of subdomain(nominated)) causes.push(invalid('status.nominatedNodeName', nominated, msg));
  return causes;
}
