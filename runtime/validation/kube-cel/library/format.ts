// kube's format library (apiserver pkg/cel/library/format.go): format.dns1123Label() and its
// siblings, format.named(name), and <format>.validate(value), which is optional.none() for a valid
// value and otherwise the messages kube's validators give.

import { Optional, type Environment } from '@marcbachmann/cel-js';
import { isDNS1123Label, isDNS1123Subdomain, isLabelValue, isQualifiedName, maxLenError, regexError } from '../../../machinery/formats.js';
import { parseRequestURI } from './urls.js';

export class KubeFormat {
  constructor(
    readonly name: string,
    readonly check: (s: string) => string[],
  ) {}
}

class FormatNamespace {}

const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
function isDNS1035Label(s: string): string[] {
  const errs: string[] = [];
  if (s.length > 63) errs.push(maxLenError(63));
  if (!DNS1035.test(s)) {
    errs.push(regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", '[a-z]([-a-z0-9]*[a-z0-9])?', 'my-name', 'abc-123'));
  }
  return errs;
}

/** NameIs...(s, prefix=true): a generateName prefix may end with '-'. */
const asPrefix = (check: (s: string) => string[]) => (s: string): string[] => check(s.length > 1 && s.endsWith('-') ? `${s.slice(0, -1)}a` : s);

const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$/;

export const FORMATS: Record<string, KubeFormat> = {
  dns1123Label: new KubeFormat('DNS1123Label', isDNS1123Label),
  dns1123Subdomain: new KubeFormat('DNS1123Subdomain', isDNS1123Subdomain),
  dns1035Label: new KubeFormat('DNS1035Label', isDNS1035Label),
  qualifiedName: new KubeFormat('QualifiedName', isQualifiedName),
  dns1123LabelPrefix: new KubeFormat('DNS1123LabelPrefix', asPrefix(isDNS1123Label)),
  dns1123SubdomainPrefix: new KubeFormat('DNS1123SubdomainPrefix', asPrefix(isDNS1123Subdomain)),
  dns1035LabelPrefix: new KubeFormat('DNS1035LabelPrefix', asPrefix(isDNS1035Label)),
  labelValue: new KubeFormat('LabelValue', isLabelValue),
  uri: new KubeFormat('URI', (s) => (parseRequestURI(s) ? [] : [`parse ${JSON.stringify(s)}: invalid URI for request`])),
  uuid: new KubeFormat('uuid', (s) => (UUID.test(s) ? [] : ['does not match the UUID format'])),
  byte: new KubeFormat('byte', (s) => (/^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0 ? [] : ['invalid base64'])),
  date: new KubeFormat('date', (s) => (DATE.test(s) && !Number.isNaN(Date.parse(s)) ? [] : ['invalid date'])),
  datetime: new KubeFormat('datetime', (s) => (DATETIME.test(s) && !Number.isNaN(Date.parse(s.replace(' ', 'T'))) ? [] : ['invalid datetime'])),
};

export function registerFormat(env: Environment): void {
  const T = 'kubernetes.NamedFormat';
  env.registerType(T, KubeFormat);
  env.registerType('kubernetes.FormatNamespace', FormatNamespace);
  env.registerConstant('format', 'kubernetes.FormatNamespace', new FormatNamespace());
  for (const [name, f] of Object.entries(FORMATS)) env.registerFunction(`kubernetes.FormatNamespace.${name}(): ${T}`, () => f);
  env.registerFunction(`kubernetes.FormatNamespace.named(string): optional<${T}>`, (_ns: unknown, name: string) =>
    Object.prototype.hasOwnProperty.call(FORMATS, name) ? Optional.of(FORMATS[name]) : Optional.none(),
  );
  env.registerFunction(`${T}.validate(string): optional<list<string>>`, (f: KubeFormat, s: string) => {
    const errs = f.check(s);
    return errs.length === 0 ? Optional.none() : Optional.of(errs);
  });
}
