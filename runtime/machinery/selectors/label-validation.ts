// How the selector parser words its errors, as k8s.io/apimachinery does; the label key and value
// rules themselves are the validation runtime's (isQualifiedName, isLabelValue).

/** Renders one field error as field.Error.Error() does: `<path>: Invalid value: "<v>": <detail>`. */
export function invalidValue(path: string, value: unknown, detail: string): string {
  return `${path}: Invalid value: ${JSON.stringify(value)}: ${detail}`;
}

/** utilerrors.Aggregate's message: one error alone, several in brackets. */
export function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}
