// /version: the version.Info kube-apiserver reports. We claim Kubernetes 1.33, the API level we
// serve, so kubectl 1.32 to 1.34 see no version skew; the build suffix says what we are.

import { arch, platform } from 'node:process';
import { Response } from '../machinery/http/response.js';

export interface VersionInfo {
  major: string;
  minor: string;
  emulationMajor?: string;
  emulationMinor?: string;
  minCompatibilityMajor?: string;
  minCompatibilityMinor?: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

/** Go's names for the architectures node reports differently. */
const GO_ARCH: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' };

export const KUBERNETES_MAJOR = '1';
export const KUBERNETES_MINOR = '33';

export const serverVersion: VersionInfo = {
  major: KUBERNETES_MAJOR,
  minor: KUBERNETES_MINOR,
  emulationMajor: KUBERNETES_MAJOR,
  emulationMinor: KUBERNETES_MINOR,
  minCompatibilityMajor: KUBERNETES_MAJOR,
  minCompatibilityMinor: String(Number(KUBERNETES_MINOR) - 1),
  gitVersion: `v${KUBERNETES_MAJOR}.${KUBERNETES_MINOR}.0+kubelite`,
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '1970-01-01T00:00:00Z',
  goVersion: `node${process.versions.node}`,
  compiler: 'tsx',
  platform: `${platform}/${GO_ARCH[arch] ?? arch}`,
};

/** kube-apiserver writes it indented, without a trailing newline. */
export function versionResponse(info: VersionInfo = serverVersion): Response {
  return new Response(JSON.stringify(info, null, 2), { headers: { 'Content-Type': 'application/json' } });
}
