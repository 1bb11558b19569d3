// What kube-apiserver's ValidatePodStatusUpdate checks of a status write, in its order: a
// nominated node name that is a valid node name (checked only when the write changes it, so a
// stored name kube once let through never blocks a later write), no terminated container brought back to life
// (container-state.ts), then the addresses: pod and host IPs valid, at most one per IP family
// and none twice (causes at the list index, as kube reports them), hostIP equal to the first
// hostIPs entry.

import type { StatusCause } from '../../../errors/status-error.js';
import { duplicate, invalid } from '../../../validation/field-errors.js';
import { FORMAT_CHECKS } from '../../../machinery/formats.js';
import { asObject, asObjectList, asString, type KubeObject } from '../../../machinery/object.js';
import { containerStateTransitionCauses } from './container-state.js';

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

export function podStatusCauses(status: unknown, old: KubeObject): StatusCause[] {
  const s = asObject(status);
  const causes: StatusCause[] = [];
  const nominated = asString(s.nominatedNodeName);
  const subdomain = FORMAT_CHECKS.dns1123Subdomain;
  if (nominated && nominated !== asString(asObject(old.status).nominatedNodeName) && subdomain) for (const msg of subdomain(nominated)) causes.push(invalid('status.nominatedNodeName', nominated, msg));
  causes.push(...containerStateTransitionCauses(s, old.status, old.spec));
  causes.push(...addressCauses(asObjectList(s.podIPs), 'status.podIPs'), ...addressCauses(asObjectList(s.hostIPs), 'status.hostIPs'));
  const hostIPs = asObjectList(s.hostIPs);
  if (hostIPs.length && asString(s.hostIP) !== asString(hostIPs[0].ip)) causes.push(invalid('status.hostIPs[0].ip', asString(hostIPs[0].ip), 'must be equal to `hostIP`'));
  return causes;
}
