// Errors of the client's configuration. Their messages name the file, context, user or command
// at fault and never carry a token, a key or what a credential plugin printed.

export class KubeConfigError extends Error {
  override name = 'KubeConfigError';
}
