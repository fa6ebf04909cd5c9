/**
 * Kubernetes' CEL IP, CIDR and URL libraries (`k8s.io/apiserver/pkg/cel/library`: ip.go, cidr.go,
 * urls.go) over @bufbuild/cel. Addresses are kept in their canonical text (IPv6 compressed and lower
 * case), so `==` compares them by value.
 */
import { isIP } from 'node:net';
import { CelScalar, celError, celFunc, celMethod, mapType } from '@bufbuild/cel';
import type { CelFunc, CelValue } from '@bufbuild/cel';
import { expect, opaque, payloadOf } from './opaque.js';

const T = mapType(CelScalar.STRING, CelScalar.DYN);

interface Ip {
  family: 4 | 6;
  /** The address as a 32- or 128-bit number. */
  bits: bigint;
}

function canonicalIp(s: string): string | undefined {
  const fam = isIP(s);
  if (fam === 4) {
    // Go's netip rejects leading zeros in IPv4 octets
    if (s.split('.').some((o) => o.length > 1 && o.startsWith('0'))) return undefined;
    return s;
  }
  if (fam === 6) {
    if (s.includes('%')) return undefined; // zones are not accepted
    const host = new URL(`http://[${s}]/`).hostname.slice(1, -1);
    // IPv4-mapped IPv6 addresses are not accepted (kube's ip() rejects them)
    if (/^::ffff:[0-9a-f]+:[0-9a-f]+$/.test(host) || host.startsWith('::ffff:')) return undefined;
    return host;
  }
  return undefined;
}

function parseIp(text: string): Ip {
  if (text.includes(':')) {
    const host = new URL(`http://[${text}]/`).hostname.slice(1, -1);
    const [head = '', tail = ''] = host.split('::') as [string, string?] as [string, string];
    const h = head === '' ? [] : head.split(':');
    const t = host.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
    const groups = host.includes('::')
      ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t]
      : h;
    let bits = 0n;
    for (const g of groups) bits = (bits << 16n) | BigInt(parseInt(g, 16));
    return { family: 6, bits };
  }
  let bits = 0n;
  for (const o of text.split('.')) bits = (bits << 8n) | BigInt(Number(o));
  return { family: 4, bits };
}

function formatIp(ip: Ip): string {
  if (ip.family === 4) {
    const o: number[] = [];
    for (let i = 3; i >= 0; i--) o.push(Number((ip.bits >> BigInt(i * 8)) & 0xffn));
    return o.join('.');
  }
  const g: string[] = [];
  for (let i = 7; i >= 0; i--) g.push(((ip.bits >> BigInt(i * 16)) & 0xffffn).toString(16));
  return new URL(`http://[${g.join(':')}]/`).hostname.slice(1, -1);
}

function inRange(ip: Ip, family: 4 | 6, prefix: bigint, len: number): boolean {
  if (ip.family !== family) return false;
  const width = family === 4 ? 32 : 128;
  const shift = BigInt(width - len);
  return ip.bits >> shift === prefix >> shift;
}

function ipOf(s: string, fn: string): string {
  const c = canonicalIp(s);
  if (c === undefined)
    throw celError(`IP Address ${JSON.stringify(s)} parse error during conversion from string: ${fn}`);
  return c;
}

interface Cidr {
  ip: string;
  prefix: number;
}

function parseCidr(s: string): Cidr | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = canonicalIp(s.slice(0, slash));
  const len = s.slice(slash + 1);
  if (ip === undefined || !/^\d{1,3}$/.test(len)) return undefined;
  const prefix = Number(len);
  if (prefix > (ip.includes(':') ? 128 : 32)) return undefined;
  return { ip, prefix };
}

function masked(c: Cidr): Cidr {
  const ip = parseIp(c.ip);
  const width = ip.family === 4 ? 32 : 128;
  const shift = BigInt(width - c.prefix);
  return { ip: formatIp({ family: ip.family, bits: (ip.bits >> shift) << shift }), prefix: c.prefix };
}

const cidrText = (c: Cidr): string => `${c.ip}/${c.prefix}`;

function cidrOf(v: CelValue, fn: string): Cidr {
  if (typeof v === 'string') {
    const c = parseCidr(v);
    if (!c) throw celError(`network address parse error during conversion from string: ${fn}`);
    return c;
  }
  const t = expect<string>('cidr', v, fn);
  return parseCidr(t)!;
}

function containsIp(c: Cidr, ip: string): boolean {
  const net = parseIp(c.ip);
  return inRange(parseIp(ip), net.family, net.bits, c.prefix);
}

function ipClass(test: (ip: Ip) => boolean): (this: CelValue) => boolean {
  return function (this: CelValue): boolean {
    return test(parseIp(expect<string>('ip', this, 'ip')));
  };
}

const v4 = (s: string): bigint => parseIp(s).bits;
const v6 = (s: string): bigint => parseIp(s).bits;
const isUnspecified = (ip: Ip): boolean => ip.bits === 0n;
const isLoopback = (ip: Ip): boolean =>
  ip.family === 4 ? inRange(ip, 4, v4('127.0.0.0'), 8) : ip.bits === 1n;
const isLinkLocalMulticast = (ip: Ip): boolean =>
  ip.family === 4 ? inRange(ip, 4, v4('224.0.0.0'), 24) : inRange(ip, 6, v6('ff02::'), 16);
const isLinkLocalUnicast = (ip: Ip): boolean =>
  ip.family === 4 ? inRange(ip, 4, v4('169.254.0.0'), 16) : inRange(ip, 6, v6('fe80::'), 10);
const isMulticast = (ip: Ip): boolean =>
  ip.family === 4 ? inRange(ip, 4, v4('224.0.0.0'), 4) : inRange(ip, 6, v6('ff00::'), 8);
const isGlobalUnicast = (ip: Ip): boolean =>
  !isUnspecified(ip) &&
  !isLoopback(ip) &&
  !isMulticast(ip) &&
  !isLinkLocalUnicast(ip) &&
  !(ip.family === 4 && ip.bits === 0xffffffffn);

interface Url {
  scheme: string;
  host: string;
  hostname: string;
  port: string;
  path: string;
  query: string;
}

/** Go's url.ParseRequestURI as kube's url() uses it: an absolute URI or an absolute path. */
function parseUrl(s: string): Url | undefined {
  if (s === '' || /\s/.test(s)) return undefined;
  if (s.startsWith('/')) {
    const q = s.indexOf('?');
    return {
      scheme: '',
      host: '',
      hostname: '',
      port: '',
      path: q < 0 ? s : s.slice(0, q),
      query: q < 0 ? '' : s.slice(q + 1),
    };
  }
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/.exec(s);
  if (!m) return undefined;
  const rest = m[2];
  let host = '';
  let pathAndQuery = rest;
  if (rest.startsWith('//')) {
    const end = rest.slice(2).search(/[/?#]/);
    host = end < 0 ? rest.slice(2) : rest.slice(2, end + 2);
    pathAndQuery = end < 0 ? '' : rest.slice(end + 2);
    const at = host.lastIndexOf('@');
    if (at >= 0) host = host.slice(at + 1);
  }
  const hash = pathAndQuery.indexOf('#');
  if (hash >= 0) pathAndQuery = pathAndQuery.slice(0, hash);
  const q = pathAndQuery.indexOf('?');
  let hostname = host;
  let port = '';
  const v6m = /^\[([^\]]*)\](?::(\d*))?$/.exec(host);
  if (v6m) {
    hostname = v6m[1]!;
    port = v6m[2] ?? '';
  } else if (host.includes(':')) {
    const i = host.lastIndexOf(':');
    hostname = host.slice(0, i);
    port = host.slice(i + 1);
    if (!/^\d*$/.test(port)) return undefined;
  }
  return {
    scheme: m[1],
    host,
    hostname,
    port,
    path: q < 0 ? pathAndQuery : pathAndQuery.slice(0, q),
    query: q < 0 ? '' : pathAndQuery.slice(q + 1),
  };
}

function urlOf(v: CelValue, fn: string): Url {
  return parseUrl(expect<string>('url', v, fn))!;
}

function urlMethod(name: string, pick: (u: Url) => string): CelFunc {
  return celMethod(name, T, [], CelScalar.STRING, function (this: CelValue) {
    return pick(urlOf(this, name));
  });
}

/** The functions of the IP, CIDR and URL libraries. */
export function netLibrary(): CelFunc[] {
  return [
    celFunc('ip', [CelScalar.STRING], T, (s: string) => opaque('ip', ipOf(s, 'ip'))),
    celFunc('isIP', [CelScalar.STRING], CelScalar.BOOL, (s: string) => canonicalIp(s) !== undefined),
    celFunc(
      'ip.isCanonical',
      [CelScalar.STRING],
      CelScalar.BOOL,
      (s: string) => ipOf(s, 'ip.isCanonical') === s,
    ),
    celFunc('string', [T], CelScalar.STRING, (v: CelValue) => {
      const ip = payloadOf<string>('ip', v);
      if (ip !== undefined) return ip;
      const c = payloadOf<string>('cidr', v);
      if (c !== undefined) return c;
      const u = payloadOf<string>('url', v);
      if (u !== undefined) return u;
      throw celError('no such overload: string');
    }),
    celMethod('family', T, [], CelScalar.INT, function (this: CelValue) {
      return BigInt(parseIp(expect<string>('ip', this, 'family')).family);
    }),
    celMethod('isUnspecified', T, [], CelScalar.BOOL, ipClass(isUnspecified)),
    celMethod('isLoopback', T, [], CelScalar.BOOL, ipClass(isLoopback)),
    celMethod('isLinkLocalMulticast', T, [], CelScalar.BOOL, ipClass(isLinkLocalMulticast)),
    celMethod('isLinkLocalUnicast', T, [], CelScalar.BOOL, ipClass(isLinkLocalUnicast)),
    celMethod('isGlobalUnicast', T, [], CelScalar.BOOL, ipClass(isGlobalUnicast)),
    celFunc('cidr', [CelScalar.STRING], T, (s: string) => opaque('cidr', cidrText(cidrOf(s, 'cidr')))),
    celFunc('isCIDR', [CelScalar.STRING], CelScalar.BOOL, (s: string) => parseCidr(s) !== undefined),
    celMethod('containsIP', T, [CelScalar.DYN], CelScalar.BOOL, function (this: CelValue, ip: CelValue) {
      const c = cidrOf(this, 'containsIP');
      const addr = typeof ip === 'string' ? ipOf(ip, 'containsIP') : expect<string>('ip', ip, 'containsIP');
      return containsIp(c, addr);
    }),
    celMethod('containsCIDR', T, [CelScalar.DYN], CelScalar.BOOL, function (this: CelValue, other: CelValue) {
      const c = cidrOf(this, 'containsCIDR');
      const o = cidrOf(other, 'containsCIDR');
      return o.prefix >= c.prefix && containsIp(c, o.ip);
    }),
    celMethod('ip', T, [], T, function (this: CelValue) {
      return opaque('ip', cidrOf(this, 'ip').ip);
    }),
    celMethod('masked', T, [], T, function (this: CelValue) {
      return opaque('cidr', cidrText(masked(cidrOf(this, 'masked'))));
    }),
    celMethod('prefixLength', T, [], CelScalar.INT, function (this: CelValue) {
      return BigInt(cidrOf(this, 'prefixLength').prefix);
    }),
    celFunc('url', [CelScalar.STRING], T, (s: string) => {
      if (!parseUrl(s))
        throw celError(
          `URL parse error during conversion from string: parse ${JSON.stringify(s)}: invalid URI for request`,
        );
      return opaque('url', s);
    }),
    celFunc('isURL', [CelScalar.STRING], CelScalar.BOOL, (s: string) => parseUrl(s) !== undefined),
    urlMethod('getScheme', (u) => u.scheme),
    urlMethod('getHost', (u) => u.host),
    urlMethod('getHostname', (u) => u.hostname),
    urlMethod('getPort', (u) => u.port),
    urlMethod('getEscapedPath', (u) => u.path),
    celMethod('getQuery', T, [], mapType(CelScalar.STRING, CelScalar.DYN), function (this: CelValue) {
      const out = new Map<string, string[]>();
      for (const [k, v] of new URLSearchParams(urlOf(this, 'getQuery').query)) {
        const l = out.get(k) ?? [];
        l.push(v);
        out.set(k, l);
      }
      return out;
    }),
  ];
}
