// A problem in a spec file, named by file, line and path, as the generator reports it:
// `api-specs/core/v1.yaml:42: kinds.ConfigMap.fields.data.type: must be one of ...`.

export class SpecError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${file}:${line}: ${path ? `${path}: ` : ''}${problem}`);
    this.name = 'SpecError';
  }
}

/** Several spec errors reported together, so one run shows every problem. */
export class SpecErrors extends Error {
  constructor(readonly errors: SpecError[]) {
    super(errors.map((e) => e.message).join('\n'));
    this.name = 'SpecErrors';
  }
}
