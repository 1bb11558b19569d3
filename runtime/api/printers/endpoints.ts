// The ENDPOINTS column of `kubectl get endpoints` (kube-apiserver's formatEndpoints): for each
// subset, each port paired with each ready address as host:port (IPv6 hosts in brackets, as Go's
// net.JoinHostPort), or the bare addresses of a subset without ports; the first three, then
// " + N more..." counting every pair; <none> without subsets.

import { joinHostPort } from '../../machinery/join-host-port.js';
import { asObjectList } from '../../machinery/object.js';

const SHOWN = 3;


function endpointsList(obj: Record<string, unknown>): string {
  const subsets = asObjectList(obj.subsets);
  if (subsets.length === 0) return '<none>';
  const shown: string[] = [];
  let count = 0;
  for (const subset of subsets) {
    const ips = asObjectList(subset.addresses).map((a) => (typeof a.ip === 'string' ? a.ip : ''));
    const ports = asObjectList(subset.ports);
    const pairs = ports.length === 0 ? [ips] : ports.map((p) => ips.map((ip) => joinHostPort(ip, typeof p.port === 'number' ? p.port : 0)));
    for (const group of pairs) {
      count += group.length;
      for (const item of group) {
        if (shown.length === SHOWN) break;
        shown.push(item);
      }
    }
  }
  const text = shown.join(',');
  return count > SHOWN ? `${text} + ${count - SHOWN} more...` : text;
}

export const endpointsPrinters = { endpointsList };
