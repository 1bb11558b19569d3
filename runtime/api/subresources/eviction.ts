// POST .../pods/<name>/eviction: a policy Eviction (v1, or v1beta1 as kube-apiserver still
// accepts) asks for the pod to be deleted with its deleteOptions. This server serves no
// PodDisruptionBudgets, so no budget can refuse: the pod is deleted (or, when the pod is bound
// to a node, gracefully marked, as a DELETE would) and the answer is 201 with a Success Status.
// As kube-apiserver does, a real (not dry-run) eviction first records a DisruptionTarget
// condition in the pod's status, so watchers and a pod that terminates gracefully show why.
// Nothing is stored for the eviction itself.

import { badRequest, forbidden } from '../../errors/status-error.js';
import { nodeEvictionRefusal } from '../../registry/admission/node-restriction.js';
import { dryRunCauses, invalidOptions, type DeleteOptions } from '../../registry/delete-options.js';
import { asObject, asString, isPlainObject, metaOf, nowRFC3339, type KubeObject } from '../../machinery/object.js';
import { NODES_GROUP } from '../../auth/node/authorizer.js';
import type { HandlerContext } from '../handlers/context.js';
import { readBody, respond } from '../handlers/context.js';

const EVICTION_VERSIONS = ['policy/v1', 'policy/v1beta1'];

type Obj = Record<string, unknown>;

function evictionFrom(ctx: HandlerContext, obj: Obj): Obj {
  const apiVersion = asString(obj.apiVersion);
  const kind = asString(obj.kind);
  if (kind && kind !== 'Eviction') {
    const version = apiVersion.includes('/') ? apiVersion.split('/')[1] : apiVersion || ctx.target.version;
    throw badRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a Eviction: no kind "${kind}" is registered for version "${apiVersion || 'policy/v1'}"`);
  }
  if (apiVersion && !EVICTION_VERSIONS.includes(apiVersion)) {
    throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (policy/v1)`);
  }
  return obj;
}

/** The eviction's deleteOptions, with the request's dryRun (a query parameter) taking part as kube's does. */
function deleteOptionsOf(ctx: HandlerContext, eviction: Obj): DeleteOptions {
  const body = asObject(eviction.deleteOptions);
  const queryDryRun = ctx.query.getAll('dryRun');
  const bodyDryRun = Array.isArray(body.dryRun) ? body.dryRun.map(String) : [];
  const dryRun = queryDryRun.length ? queryDryRun : bodyDryRun;
  const causes = dryRunCauses(dryRun);
  if (causes.length) throw invalidOptions('DeleteOptions', causes);
  const grace = body.gracePeriodSeconds;
  return {
    dryRun: dryRun.length > 0,
    preconditions: isPlainObject(body.preconditions) ? (body.preconditions as DeleteOptions['preconditions']) : undefined,
    propagationPolicy: typeof body.propagationPolicy === 'string' ? body.propagationPolicy : undefined,
    orphanDependents: typeof body.orphanDependents === 'boolean' ? body.orphanDependents : undefined,
    gracePeriodSeconds: typeof grace === 'number' ? grace : undefined,
  };
}

/** The pod with a DisruptionTarget condition saying the Eviction API is evicting it. */
function withDisruptionTarget(pod: KubeObject): KubeObject {
  const status = asObject(pod.status);
  const others = Array.isArray(status.conditions) ? status.conditions.filter((c) => !(isPlainObject(c) && c.type === 'DisruptionTarget')) : [];
  const condition = { type: 'DisruptionTarget', status: 'True', lastTransitionTime: nowRFC3339(), reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' };
  pod.status = { ...status, conditions: [...others, condition] };
  return pod;
}

export async function evictPod(ctx: HandlerContext): Promise<Response> {
  const contentType = ctx.request.headers.get('content-type') ?? undefined;
  const eviction = evictionFrom(ctx, ctx.negotiator.decodeBody(contentType, await readBody(ctx), ctx.target));
  ctx.recordRequestObject?.(eviction);
  const meta = asObject(eviction.metadata);
  if (typeof meta.name === 'string' && meta.name !== '' && meta.name !== ctx.info.name) {
    throw badRequest('name in URL does not match name in Eviction object');
  }
  const options = deleteOptionsOf(ctx, eviction);
  const namespace = ctx.info.namespace || undefined;
  // NodeRestriction admission: a kubelet evicts only the pods bound to its node.
  if (ctx.user?.groups.includes(NODES_GROUP)) {
    const refusal = nodeEvictionRefusal(ctx.user, await ctx.store.get(namespace, ctx.info.name));
    if (refusal) throw forbidden({ group: '', resource: 'pods' }, ctx.info.name, refusal);
  }
  // A dry run first: a missing pod (404) or a failed precondition (409) stops here, unchanged.
  await ctx.store.delete(namespace, ctx.info.name, { ...options, dryRun: true });
  if (!options.dryRun) {
    const marked = await ctx.store.guaranteedUpdate(namespace, ctx.info.name, withDisruptionTarget, { subresource: 'status' });
    // The condition write moved the version a resourceVersion precondition named; it was checked above.
    if (options.preconditions?.resourceVersion) options.preconditions = { ...options.preconditions, resourceVersion: metaOf(marked).resourceVersion };
  }
  await ctx.store.delete(namespace, ctx.info.name, options);
  return respond({ ...ctx, target: { group: '', version: 'v1', kind: 'Status' } }, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' });
}
