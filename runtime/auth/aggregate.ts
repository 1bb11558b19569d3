// Go's utilerrors.NewAggregate(errs).Error(), which kube-apiserver uses wherever several
// authenticators or authorizers fail together: one distinct message alone, several joined in
// brackets, repeats dropped.

export function aggregateMessage(errors: readonly string[]): string {
  const distinct = [...new Set(errors)];
  return distinct.length === 1 ? distinct[0] : `[${distinct.join(', ')}]`;
}
