// kube's ordering of API versions (apimachinery's CompareKubeAwareVersionStrings): GA versions
// first, highest major first, then betas, then alphas (each by major, then minor, highest
// first); strings that are not Kubernetes-like versions come last, in alphabetical order.
// Discovery lists a group's versions in this order and prefers the first.

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
const STAGE = { '': 3, beta: 2, alpha: 1 } as const;

/** Negative when `a` comes before `b`. */
export function compareKubeAwareVersions(a: string, b: string): number {
  const ma = KUBE_VERSION.exec(a);
  const mb = KUBE_VERSION.exec(b);
  if (!ma && !mb) return a < b ? -1 : a > b ? 1 : 0;
  if (!ma) return 1;
  if (!mb) return -1;
  const stageA = STAGE[(ma[2] ?? '') as keyof typeof STAGE];
  const stageB = STAGE[(mb[2] ?? '') as keyof typeof STAGE];
  if (stageA !== stageB) return stageB - stageA;
  const majorA = Number(ma[1]);
  const majorB = Number(mb[1]);
  if (majorA !== majorB) return majorB - majorA;
  return Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}
