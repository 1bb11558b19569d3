// How many members a parsed JSON value holds, in all its objects: JSON.parse keeps one of repeated
// members, so a text naming more members than its parsed value holds repeats one (api/duplicate-fields.ts).

/** Members of every object in a parsed JSON value, walked with an explicit stack (JSON may nest 10,000 levels). */
export function memberCount(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let n = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (Array.isArray(v)) {
      for (const item of v) if (typeof item === 'object' && item !== null) pending.push(item);
      continue;
    }
    for (const key in v as object) {
      n++;
      const item = (v as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) pending.push(item);
    }
  }
  return n;
}
