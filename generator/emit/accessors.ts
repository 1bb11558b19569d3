// client-go's names for group versions and resources, camelCased: what the typed client's
// accessors and the types index's namespaces are called.

import type { KindModel } from '../model.js';

export const upperFirst = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** client-go's group accessor, camelCased: the group's first label and the version (rbacV1, resourceV1beta2). */
export function groupAccessor(gv: { group: string; version: string }): string {
  return `${gv.group ? gv.group.split('.')[0] : 'core'}${upperFirst(gv.version)}`;
}

/** gengo's plural namer, which client-gen names resources with. */
function pluralOf(kind: string): string {
  if (/(s|x|z|ch|sh)$/.test(kind)) return `${kind}es`;
  if (/[^aeiou]y$/.test(kind)) return `${kind.slice(0, -1)}ies`;
  return `${kind}s`;
}

/** client-go's resource accessor, camelCased with a leading acronym in lower case (csiDrivers). */
export function resourceAccessor(k: KindModel): string {
  const plural = pluralOf(k.kind);
  // A plural the spec spells otherwise (irregular) is taken as the spec spells it.
  const name = plural.toLowerCase() === k.plural ? plural : k.plural;
  return name.replace(/^[A-Z]+?(?=[A-Z][a-z]|$)|^[A-Z]/, (head) => head.toLowerCase());
}

