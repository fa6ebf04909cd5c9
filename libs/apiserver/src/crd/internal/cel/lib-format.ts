/**
 * Kubernetes' CEL format library (`k8s.io/apiserver/pkg/cel/library/format.go`): `format.named(n)`
 * and `format.<name>()` give a format, `<format>.validate(s)` gives `optional.none()` when `s` is
 * valid and otherwise `optional.of(<list of error messages>)`, with apimachinery's messages.
 */
import { CelScalar, celError, celFunc, celMethod, mapType } from '@bufbuild/cel';
import type { CelFunc, CelValue } from '@bufbuild/cel';
import { isDns1035Label, isDns1123Subdomain } from '../../name-validation.js';
import { labelKeyErrors, labelValueErrors } from '../../../selectors/label-validation.js';
import { expect, none, opaque, payloadOf, some } from './opaque.js';

const T = mapType(CelScalar.STRING, CelScalar.DYN);

const DNS1123_LABEL_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
function isDns1123Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push('must be no more than 63 characters');
  if (!DNS1123_LABEL_RE.test(v))
    errs.push(
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    );
  return errs;
}

/** Prefix forms (for generateName): a trailing '-' is allowed, as apimachinery's NameIsDNS*Prefix. */
const prefix =
  (check: (v: string) => string[]) =>
  (v: string): string[] =>
    check(v.endsWith('-') ? `${v.slice(0, -1)}a` : v);

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const FORMATS: Record<string, (v: string) => string[]> = {
  dns1123Label: isDns1123Label,
  dns1123Subdomain: isDns1123Subdomain,
  dns1035Label: isDns1035Label,
  qualifiedName: labelKeyErrors,
  dns1123LabelPrefix: prefix(isDns1123Label),
  dns1123SubdomainPrefix: prefix(isDns1123Subdomain),
  dns1035LabelPrefix: prefix(isDns1035Label),
  labelValue: labelValueErrors,
  uri: (v) => (URL.canParse(v) || v.startsWith('/') ? [] : ['invalid URI']),
  uuid: (v) => (UUID_RE.test(v) ? [] : ['does not match the UUID format']),
  byte: (v) =>
    /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(v) ? [] : ['invalid base64'],
  date: (v) => (/^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)) ? [] : ['invalid date']),
  datetime: (v) =>
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(v) &&
    !Number.isNaN(Date.parse(v))
      ? []
      : ['invalid datetime'],
};

/** The functions of the format library. */
export function formatLibrary(): CelFunc[] {
  return [
    celFunc('format.named', [CelScalar.STRING], T, (n: string) =>
      n in FORMATS ? some(opaque('format', n)) : none(),
    ),
    ...Object.keys(FORMATS).map((n) => celFunc(`format.${n}`, [], T, () => opaque('format', n))),
    celMethod('validate', T, [CelScalar.STRING], T, function (this: CelValue, s: string) {
      const name = payloadOf<string>('format', this) ?? expect<string>('format', this, 'validate');
      const check = FORMATS[name];
      if (!check) throw celError(`unknown format: ${name}`);
      const errs = check(s);
      return errs.length === 0 ? none() : some(errs);
    }),
  ];
}
