// What the layers below the server record into /metrics. The server owns the Prometheus registry
// (one per running server, so several servers in one process keep apart); registry and auth get
// this small interface handed down from the entry and never import the server.

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface DeprecatedApiRequest {
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** '' when the API has no planned removal. */
  removed_release: string;
}

export type AuthorizationDecision = 'allowed' | 'denied';

export interface ApiMetrics {
  /** A watch was opened (+1) or ended (-1) on kind; apiserver_registered_watchers. */
  watchersChanged(gvk: GroupVersionKind, delta: number): void;
  /** What one watch of kind calls for each event it sends; apiserver_watch_events_total. */
  watchEventCounter(gvk: GroupVersionKind): () => void;
  /** A watch was ended because its client stopped reading; apiserver_terminated_watchers_total. */
  watcherTerminated(group: string, resource: string): void;
  /**
   * The count of one authorizer's terminal decisions of one kind (apiserver_authorization_decisions_total),
   * for the authorizer to keep and increment: the series appears with its first decision, as kube's does.
   */
  authorizationDecisions(type: string, name: string, decision: AuthorizationDecision): { inc(): void };
  /** A served deprecated API was requested; apiserver_requested_deprecated_apis set to 1. */
  deprecatedApiRequested(request: DeprecatedApiRequest): void;
  /** An audit event went to the audit backend; apiserver_audit_event_total. */
  auditEventWritten(): void;
  /** Declarative and hand-written validation disagreed; apiserver_validation_declarative_validation_mismatch_total. */
  declarativeValidationMismatch(): void;
  /**
   * The --authorization-config file was reloaded automatically, at `seconds` since the epoch;
   * apiserver_authorization_config_controller_automatic_reloads_total and _reload_last_timestamp_seconds.
   */
  authorizationConfigReload(status: 'success' | 'failure', seconds: number): void;
}

/** Records nothing: what layers get when no server hands them a registry (unit tests, metrics off). */
export const noMetrics: ApiMetrics = {
  watchersChanged() {},
  watchEventCounter: () => () => {},
  watcherTerminated() {},
  authorizationDecisions: () => ({ inc() {} }),
  deprecatedApiRequested() {},
  auditEventWritten() {},
  declarativeValidationMismatch() {},
  authorizationConfigReload() {},
};
