import { isIPv6 } from 'node:net';
import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import { validateName } from '../storage/names.js';
import { invalid, notSupported, objects, required, strings } from './field-causes.js';

// A pod's DNS settings and operating system as kube-apiserver 1.32 validates them
// (pkg/apis/core/validation validatePodDNSConfig, validateOS; apimachinery IsValidIP). The
// RelaxedDNSSearchValidation gate is alpha and off in 1.32, so searches are DNS subdomains. The
// per-OS rules (validateLinux, validateWindows) are not checked.

const MAX_NAMESERVERS = 3;
const MAX_SEARCHES = 32;
const MAX_SEARCH_CHARS = 2048;

/** A list of strings as Go's %#v prints a []string, the value kube 1.32 shows for one. */
const goStrings = (list: readonly string[]): string =>
  `[]string{${list.map((s) => JSON.stringify(s)).join(', ')}}`;

const invalidList = (field: string, list: readonly string[], detail: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${goStrings(list)}: ${detail}`,
});

/** netutils.ParseIPSloppy: an IPv4 address (leading zeros allowed) or an IPv6 one. */
function isIp(value: string): boolean {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(value);
  if (v4) return v4.slice(1).every((part) => Number(part) <= 255);
  return !value.includes('%') && isIPv6(value);
}

/** validatePodDNSConfig at `path` (`spec.dnsConfig`). */
export function dnsConfigCauses(spec: JsonObject, path: string): StatusCause[] {
  const config = isObject(spec.dnsConfig) ? spec.dnsConfig : undefined;
  const nameservers = strings(config?.nameservers);
  if (spec.dnsPolicy === 'None') {
    if (!config) return [required(path, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (nameservers.length === 0)
      return [
        required(`${path}.nameservers`, 'must provide at least one DNS nameserver when `dnsPolicy` is None'),
      ];
  }
  if (!config) return [];
  const causes: StatusCause[] = [];
  if (nameservers.length > MAX_NAMESERVERS)
    causes.push(
      invalidList(
        `${path}.nameservers`,
        nameservers,
        `must not have more than ${MAX_NAMESERVERS} nameservers`,
      ),
    );
  nameservers.forEach((ns, i) => {
    if (!isIp(ns))
      causes.push(
        invalid(
          `${path}.nameservers[${i}]`,
          ns,
          'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
        ),
      );
  });
  const searches = strings(config.searches);
  if (searches.length > MAX_SEARCHES)
    causes.push(
      invalidList(`${path}.searches`, searches, `must not have more than ${MAX_SEARCHES} search paths`),
    );
  if (searches.join(' ').length > MAX_SEARCH_CHARS)
    causes.push(
      invalidList(
        `${path}.searches`,
        searches,
        `must not have more than ${MAX_SEARCH_CHARS} characters (including spaces) in the search list`,
      ),
    );
  // a trailing dot is allowed
  searches.forEach((s, i) =>
    causes.push(...validateName(s.endsWith('.') ? s.slice(0, -1) : s, 'subdomain', `${path}.searches[${i}]`)),
  );
  objects(config.options).forEach((option, i) => {
    if (typeof option.name !== 'string' || option.name === '')
      causes.push(required(`${path}.options[${i}]`, 'must not be empty'));
  });
  return causes;
}

/** validateOS at `path` (`spec.os`): a name, linux or windows. */
export function osCauses(os: unknown, path: string): StatusCause[] {
  if (!isObject(os)) return [];
  const name = typeof os.name === 'string' ? os.name : '';
  if (name === '') return [required(`${path}.name`, 'cannot be empty')];
  return name === 'linux' || name === 'windows' ? [] : [notSupported(path, name, ['linux', 'windows'])];
}
