// The Node authorizer (kube's plugin/pkg/auth/authorizer/node): a kubelet, user
// `system:node:<name>` in group `system:nodes`, may read the secrets, configmaps, claims,
// volumes, resource claims and service account tokens of the pods bound to its node (decided on
// the graph), its own Node, CSINode and Lease, and the ResourceSlices of its node; everything
// else it may do is the fixed set of node rules (the system:node role's). It never denies: what
// it does not allow is left to the next authorizer, with its reason.

import { parseFieldSelectorTerms, requiredExactMatch } from '../../machinery/selectors/field-selector.js';
import type { Attributes, AuthorizationResult, Authorizer, RuleResolver, RulesResult } from '../authorizer.js';
import { ruleAllows, type PolicyRule } from '../rbac/rules.js';
import type { UserInfo } from '../user.js';
import type { Graph, VertexType } from './graph.js';

export const NODE_USER_PREFIX = 'system:node:';
export const NODES_GROUP = 'system:nodes';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/** The node a user is (nodeidentifier.NodeIdentity): undefined for a non-node, '' for a node of unknown name. */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.name.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return undefined;
  return user.name.slice(NODE_USER_PREFIX.length);
}

export interface NodeAuthorizerOptions {
  /** The node rules: what every node may do on resources the graph does not subdivide. */
  rules: readonly PolicyRule[];
  /** The AuthorizeNodeWithSelectors gate: a node's access to Nodes and Pods is narrowed to its own. */
  withSelectors: boolean;
}

const allow = (): AuthorizationResult => ({ decision: 'allow', reason: '' });
const noOpinion = (reason = ''): AuthorizationResult => ({ decision: 'noOpinion', reason });

/** The value the request's field selector pins `field` to (`=` or `==`), if it parses. */
function selectedValue(a: Attributes, field: string): string | undefined {
  if (a.fieldSelector === undefined) return undefined;
  try {
    return requiredExactMatch(parseFieldSelectorTerms(a.fieldSelector), field);
  } catch {
    return undefined;
  }
}

export class NodeAuthorizer implements Authorizer, RuleResolver {
  constructor(
    private readonly graph: Graph,
    private readonly options: NodeAuthorizerOptions,
  ) {}

  rulesFor(user: UserInfo): RulesResult {
    // A node's permissions depend on the graph, so they cannot be listed.
    if (nodeIdentity(user) !== undefined) {
      return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' };
    }
    return { resourceRules: [], nonResourceRules: [], incomplete: false };
  }

  authorize(a: Attributes): AuthorizationResult {
    const nodeName = nodeIdentity(a.user);
    if (nodeName === undefined) return noOpinion();
    if (nodeName === '') return noOpinion(`unknown node for user ${JSON.stringify(a.user.name)}`);
    if (a.isResourceRequest) {
      const decided = this.subdivided(nodeName, a);
      if (decided) return decided;
    }
    return this.options.rules.some((rule) => ruleAllows(a, rule)) ? allow() : noOpinion();
  }

  /** The resources whose access depends on the node; undefined for the rest. */
  private subdivided(nodeName: string, a: Attributes): AuthorizationResult | undefined {
    switch (`${a.apiGroup}/${a.resource}`) {
      case '/secrets':
        return this.readNamespaced(nodeName, 'secret', a);
      case '/configmaps':
        return this.readNamespaced(nodeName, 'configmap', a);
      case '/persistentvolumeclaims':
        return a.subresource === 'status' ? this.statusUpdate(nodeName, 'pvc', a) : this.get(nodeName, 'pvc', a);
      case '/persistentvolumes':
        return this.get(nodeName, 'pv', a);
      case 'resource.k8s.io/resourceclaims':
        return this.get(nodeName, 'resourceclaim', a);
      case 'storage.k8s.io/volumeattachments':
        return this.get(nodeName, 'volumeattachment', a);
      case '/serviceaccounts':
        return this.createToken(nodeName, a);
      case 'coordination.k8s.io/leases':
        return this.lease(nodeName, a);
      case 'storage.k8s.io/csinodes':
        return this.csiNode(nodeName, a);
      case 'resource.k8s.io/resourceslices':
        return this.resourceSlice(nodeName, a);
      case '/nodes':
        return this.options.withSelectors ? this.node(nodeName, a) : undefined;
      case '/pods':
        return this.options.withSelectors ? this.pod(nodeName, a) : undefined;
      default:
        return undefined;
    }
  }

  private related(nodeName: string, type: VertexType, a: Attributes): AuthorizationResult {
    if (a.name === '') return noOpinion('No Object name found');
    if (this.graph.hasPath(type, a.namespace, a.name, nodeName)) return allow();
    return noOpinion(`no relationship found between node '${nodeName}' and this object`);
  }

  private readNamespaced(nodeName: string, type: VertexType, a: Attributes): AuthorizationResult {
    if (!['get', 'list', 'watch'].includes(a.verb)) return noOpinion('can only read resources of this type');
    if (a.subresource !== '') return noOpinion('cannot read subresource');
    if (a.namespace === '') return noOpinion('can only read namespaced object of this type');
    return this.related(nodeName, type, a);
  }

  private statusUpdate(nodeName: string, type: VertexType, a: Attributes): AuthorizationResult {
    if (a.verb !== 'update' && a.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    if (a.subresource !== 'status') return noOpinion('can only update status subresource');
    return this.related(nodeName, type, a);
  }

  private get(nodeName: string, type: VertexType, a: Attributes): AuthorizationResult {
    if (a.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (a.subresource !== '') return noOpinion('cannot get subresource');
    return this.related(nodeName, type, a);
  }

  private createToken(nodeName: string, a: Attributes): AuthorizationResult {
    if (a.verb !== 'create' || a.name === '') return noOpinion('can only create tokens for individual service accounts');
    if (a.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return this.related(nodeName, 'serviceAccount', a);
  }

  private lease(nodeName: string, a: Attributes): AuthorizationResult {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
    if (a.namespace !== NODE_LEASE_NAMESPACE) return noOpinion(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
    // A create names no object yet; NodeRestriction checks the name then.
    if (a.verb !== 'create' && a.name !== nodeName) return noOpinion('can only access node lease with the same name as the requesting node');
    return allow();
  }

  private csiNode(nodeName: string, a: Attributes): AuthorizationResult {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode');
    if (a.subresource !== '') return noOpinion('cannot authorize CSINode subresources');
    if (a.verb !== 'create' && a.name !== nodeName) return noOpinion('can only access CSINode with the same name as the requesting node');
    return allow();
  }

  private resourceSlice(nodeName: string, a: Attributes): AuthorizationResult {
    if (a.subresource !== '') return noOpinion('cannot authorize ResourceSlice subresources');
    switch (a.verb) {
      case 'create':
        // The new slice's nodeName is NodeRestriction's to check.
        return allow();
      case 'get':
      case 'update':
      case 'patch':
      case 'delete':
        return this.related(nodeName, 'resourceslice', a);
      case 'watch':
      case 'list':
      case 'deletecollection':
        if (!this.options.withSelectors) return allow();
        if (selectedValue(a, 'spec.nodeName') === nodeName) return allow();
        return noOpinion('can only list/watch/deletecollection resourceslices with nodeName field selector');
      default:
        return noOpinion('only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection');
    }
  }

  private node(nodeName: string, a: Attributes): AuthorizationResult {
    if (a.subresource === '') {
      // Create and update are NodeRestriction's to narrow to the node's own object.
      if (['create', 'update', 'patch'].includes(a.verb)) return allow();
      if (['get', 'list', 'watch'].includes(a.verb)) {
        // Compared by name, not on the graph, so a kubelet may look for its Node before creating it.
        if (a.name === nodeName) return allow();
        if (a.name === '') return noOpinion(`node '${nodeName}' cannot read all nodes, only its own Node object`);
        return noOpinion(`node '${nodeName}' cannot read '${a.name}', only its own Node object`);
      }
    } else if (a.subresource === 'status' && (a.verb === 'update' || a.verb === 'patch')) {
      return allow();
    }
    return noOpinion();
  }

  private pod(nodeName: string, a: Attributes): AuthorizationResult {
    switch (a.subresource) {
      case '':
        if (a.verb === 'get') return this.get(nodeName, 'pod', a);
        if (a.verb === 'list' || a.verb === 'watch') {
          if (selectedValue(a, 'spec.nodeName') === nodeName) return allow();
          if (a.name !== '') return this.related(nodeName, 'pod', a);
          return noOpinion('can only list/watch pods with spec.nodeName field selector');
        }
        // Mirror pods; NodeRestriction keeps them to the node's own.
        if (a.verb === 'create' || a.verb === 'delete') return allow();
        break;
      case 'status':
        if (a.verb === 'update' || a.verb === 'patch') return allow();
        break;
      case 'eviction':
        if (a.verb === 'create') return allow();
        break;
    }
    return noOpinion();
  }
}
