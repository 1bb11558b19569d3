// Go's words for a failed file operation, as kube-apiserver's start-up errors quote them
// ("open /etc/x.pem: no such file or directory"): Node's own messages name the errno code and put
// the path last, which reads nothing like what an operator of kube-apiserver searches for.

const GO_ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
  ELOOP: 'too many levels of symbolic links',
};

/** The reason Go's os package gives for `err` (Node's message when Go's is not known here). */
export function goErrnoText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return (e.code !== undefined ? GO_ERRNO_TEXT[e.code] : undefined) ?? e.message;
}

/** Go's *PathError text: `<op> <path>: <reason>`; a directory fails at read, not at open. */
export function goPathError(op: 'open' | 'stat' | 'read', path: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  return `${op === 'open' && code === 'EISDIR' ? 'read' : op} ${path}: ${goErrnoText(err)}`;
}
