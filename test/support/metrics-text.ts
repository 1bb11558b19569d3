// Reading Prometheus text exposition in tests.

/** The value of the sample of `name` whose labels are exactly `labels`; undefined when absent. */
export function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + '{') && !line.startsWith(name + ' ')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found: Record<string, string> = {};
    for (const m of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) found[m[1]] = m[2];
    if (JSON.stringify(Object.entries(found).sort()) === JSON.stringify(Object.entries(labels).sort())) return Number(match[3]);
  }
  return undefined;
}

/**
 * The max-in-flight seats a server holds now: apiserver_current_inflight_requests is the peak
 * since the last scrape, so it is read twice and the second read's period starts at the live counts.
 */
export async function seatsHeld(
  scrape: () => Promise<string>,
): Promise<{ readOnly: number; mutating: number }> {
  await scrape();
  const text = await scrape();
  return {
    readOnly: sample(text, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' }) ?? -1,
    mutating: sample(text, 'apiserver_current_inflight_requests', { request_kind: 'mutating' }) ?? -1,
  };
}
