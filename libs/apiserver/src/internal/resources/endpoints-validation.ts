import { isIP } from 'node:net';
import type { JsonObject, StatusCause } from '../../types.js';
import { validateName } from '../storage/names.js';
import { invalid, notSupported, objects, required } from './field-causes.js';

// What kube-apiserver 1.32 refuses in Endpoints beyond their schema types (pkg/apis/core/validation
// ValidateEndpoints: validateEndpointSubsets, validateEndpointAddress, ValidateNonSpecialIP,
// validateEndpointPort), with kube's paths and wording. The annotations' rules are not checked.

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

/** An IP's IPv4 numbers (of an IPv4 address or an IPv4-mapped IPv6 one, as Go's To4), or undefined. */
function v4(ip: string): number[] | undefined {
  if (isIP(ip) === 4) return ip.split('.').map(Number);
  const canonical = new URL(`http://[${ip}]`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!mapped) return undefined;
  const hi = parseInt(mapped[1] ?? '0', 16);
  const lo = parseInt(mapped[2] ?? '0', 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255];
}

/** ValidateNonSpecialIP's complaints about an address that parses. */
function specialProblems(ip: string): string[] {
  const quad = v4(ip);
  const problems: string[] = [];
  const unspecified = `may not be unspecified (${ip})`;
  const loopback = 'may not be in the loopback range (127.0.0.0/8, ::1/128)';
  const linkLocal = 'may not be in the link-local range (169.254.0.0/16, fe80::/10)';
  const multicast = 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)';
  if (quad) {
    const [a = 0, b = 0, c = 0] = quad;
    if (quad.every((n) => n === 0)) problems.push(unspecified);
    if (a === 127) problems.push(loopback);
    if (a === 169 && b === 254) problems.push(linkLocal);
    if (a === 224 && b === 0 && c === 0) problems.push(multicast);
    return problems;
  }
  const canonical = new URL(`http://[${ip}]`).hostname.slice(1, -1);
  if (canonical === '::') problems.push(unspecified);
  if (canonical === '::1') problems.push(loopback);
  if (/^fe[89ab][0-9a-f]:/.test(canonical)) problems.push(linkLocal);
  if (/^ff[0-9a-f]2:/.test(canonical)) problems.push(multicast);
  return problems;
}

function addressCauses(address: JsonObject, at: string): StatusCause[] {
  const ip = typeof address.ip === 'string' ? address.ip : '';
  const causes: StatusCause[] = [];
  const valid = isIP(ip) !== 0;
  if (!valid)
    causes.push(invalid(`${at}.ip`, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
  if (typeof address.hostname === 'string' && address.hostname !== '')
    causes.push(...validateName(address.hostname, 'label', `${at}.hostname`));
  if (typeof address.nodeName === 'string')
    causes.push(...validateName(address.nodeName, 'subdomain', `${at}.nodeName`));
  if (!valid) causes.push(invalid(`${at}.ip`, ip, 'must be a valid IP address'));
  else for (const m of specialProblems(ip)) causes.push(invalid(`${at}.ip`, ip, m));
  return causes;
}

/** validateEndpointSubsets: each subset's addresses (some required, valid, not special) and ports. */
export function endpointsCauses(o: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  objects(o.subsets).forEach((subset, i) => {
    const at = `subsets[${i}]`;
    const addresses = objects(subset.addresses);
    const notReady = objects(subset.notReadyAddresses);
    if (addresses.length === 0 && notReady.length === 0)
      causes.push(required(at, 'must specify `addresses` or `notReadyAddresses`'));
    addresses.forEach((a, j) => causes.push(...addressCauses(a, `${at}.addresses[${j}]`)));
    notReady.forEach((a, j) => causes.push(...addressCauses(a, `${at}.notReadyAddresses[${j}]`)));
    const ports = objects(subset.ports);
    ports.forEach((p, j) => {
      const portAt = `${at}.ports[${j}]`;
      const name = typeof p.name === 'string' ? p.name : '';
      if (ports.length > 1 && name === '') causes.push(required(`${portAt}.name`));
      else if (name !== '') causes.push(...validateName(name, 'label', `${portAt}.name`));
      const port = typeof p.port === 'number' ? p.port : 0;
      if (port < 1 || port > 65535)
        causes.push(invalid(`${portAt}.port`, port, 'must be between 1 and 65535, inclusive'));
      const protocol = typeof p.protocol === 'string' ? p.protocol : '';
      if (protocol === '') causes.push(required(`${portAt}.protocol`));
      else if (!PROTOCOLS.includes(protocol))
        causes.push(notSupported(`${portAt}.protocol`, protocol, PROTOCOLS));
    });
  });
  return causes;
}
