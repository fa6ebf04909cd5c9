/**
 * The string formats kube-apiserver validates in custom resources: the supported formats of
 * apiextensions-apiserver (pkg/apiserver/validation/formats.go), checked by kube-openapi's strfmt
 * registry, whose names are compared without dashes (`date-time` is `datetime`). Any other format
 * (int32, int64, float, double, ...) is not validated, as in Kubernetes. Each check follows the Go
 * function strfmt uses (govalidator, net, k8s.io/utils/net): an absolute path is a `uri`, a named
 * address an `email`, a leading zero is fine in an `ipv4`.
 */
import type { Format } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { parseKubeDuration } from './cel/values.js';

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuidVersion = (v: string): RegExp =>
  new RegExp(`^[0-9a-f]{8}-?[0-9a-f]{4}-?${v}[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`, 'i');
/** Go's net.ParseMAC: 6, 8 or 20 octets, `:` or `-` between pairs (one kind) or `.` between quads. */
const MAC = new RegExp(
  [5, 7, 19]
    .flatMap((n) => [`[0-9a-f]{2}(?::[0-9a-f]{2}){${n}}`, `[0-9a-f]{2}(?:-[0-9a-f]{2}){${n}}`])
    .concat([2, 3, 9].map((n) => `[0-9a-f]{4}(?:\\.[0-9a-f]{4}){${n}}`))
    .map((alt) => `^${alt}$`)
    .join('|'),
  'i',
);
/** strfmt's HostnamePattern (a dotted name ends in a letters-only label; any script's letters and symbols). */
const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
/** govalidator's Base64 (at least one quad: the empty string is not base64 there). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const CHANNEL = '\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*';
const RGB_COLOR = new RegExp(`^rgb\\(${CHANNEL},${CHANNEL},${CHANNEL}\\)$`);
const CREDIT_CARD =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;
/** strfmt's time part of a date-time: a zone is required. */
const DATE_TIME_TIME = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;

function fromAjv(name: keyof typeof fullFormats): Format {
  return fullFormats[name];
}

/** Go's time.Parse("2006-01-02"): a four-digit year, two-digit month and a day that exists in it. */
function isDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day <= days;
}
const IPV6 = fullFormats.ipv6 as RegExp;

/** k8s.io/utils/net ParseIPSloppy of an IPv4 address: four decimal octets, leading zeros allowed. */
function isSloppyIPv4(value: string): boolean {
  const parts = value.split('.');
  return parts.length === 4 && parts.every((p) => /^\d+$/.test(p) && Number(p) <= 255);
}

/** An IPv6 address whose dotted IPv4 tail may have leading zeros, as ParseIPSloppy reads it. */
function isSloppyIPv6(value: string): boolean {
  const colon = value.lastIndexOf(':');
  const tail = value.slice(colon + 1);
  if (!tail.includes('.')) return IPV6.test(value);
  if (!isSloppyIPv4(tail)) return false;
  const canonical = tail
    .split('.')
    .map((p) => String(Number(p)))
    .join('.');
  return IPV6.test(value.slice(0, colon + 1) + canonical);
}

/** strfmt isIPv4: any address ParseIPSloppy reads, written with a dot (so `::ffff:1.2.3.4` too). */
function isIPv4(value: string): boolean {
  return value.includes('.') && (isSloppyIPv4(value) || isSloppyIPv6(value));
}

/** strfmt isCIDR (ParseCIDRSloppy): an address and a prefix length within its size. */
function isCidr(value: string): boolean {
  const slash = value.indexOf('/');
  if (slash < 0) return false;
  const ip = value.slice(0, slash);
  const bits = value.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  const n = Number(bits);
  if (isSloppyIPv4(ip)) return n <= 32;
  return isSloppyIPv6(ip) && n <= 128;
}

/** strfmt IsHostname: the pattern, at most 255 bytes, labels of at most 63 bytes. */
function isHostname(value: string): boolean {
  if (!HOSTNAME.test(value) || Buffer.byteLength(value) > 255) return false;
  return value.split('.').every((label) => Buffer.byteLength(label) <= 63);
}

/** strfmt IsDateTime: a date, `t` (any case) and a time with seconds and a zone. */
function isDateTime(value: string): boolean {
  if (value.length < 4) return false;
  const parts = value.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0] ?? '')) return false;
  const m = DATE_TIME_TIME.exec(parts[1] ?? '');
  if (!m) return false;
  return (m[1] ?? '') <= '23' && (m[2] ?? '') <= '59' && (m[3] ?? '') <= '59';
}

/** govalidator IsCreditCard: the digits match a card number and pass the Luhn check. */
function isCreditCard(value: string): boolean {
  const digits = value.replace(/[^0-9]+/g, '');
  if (!CREDIT_CARD.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = Number(digits[i]);
    if (double) {
      d *= 2;
      if (d >= 10) d = (d % 10) + 1;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** govalidator IsISBN10/IsISBN13: spaces and dashes dropped, then the digits and the check digit. */
function isIsbn(value: string, version: 10 | 13): boolean {
  const s = value.replace(/[\s-]+/g, '');
  if (version === 10) {
    if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(s)) return false;
    let sum = 0;
    for (let i = 0; i < 9; i++) sum += (i + 1) * Number(s[i]);
    sum += 10 * (s[9] === 'X' ? 10 : Number(s[9]));
    return sum % 11 === 0;
  }
  if (!/^[0-9]{13}$/.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * Number(s[i]);
  return Number(s[12]) - ((10 - (sum % 10)) % 10) === 0;
}

/** Characters Go's net/url refuses in a host (`shouldEscape` in host mode, ASCII only). */
const BAD_HOST_CHAR = /[ "#%/<>?@\\^`{|}]/;
const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/** An ASCII control character (Go's url parser refuses them anywhere). */
function hasControlChar(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** Go's `net/url.ParseRequestURI` (kube-openapi's `uri`): an absolute URI or an absolute path. */
function isRequestUri(value: string): boolean {
  if (value === '' || hasControlChar(value)) return false;
  if (value === '*') return true;
  if (value.startsWith(':')) return false; // missing protocol scheme
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(value)?.[0];
  let rest = scheme ? value.slice(scheme.length) : value;
  const query = rest.indexOf('?');
  if (query >= 0) rest = rest.slice(0, query);
  if (!rest.startsWith('/')) return scheme !== undefined; // opaque (mailto:x) with a scheme only
  let path = rest;
  if (scheme && rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    const authority = end < 0 ? rest.slice(2) : rest.slice(2, end);
    path = end < 0 ? '' : rest.slice(end);
    const at = authority.lastIndexOf('@');
    const userinfo = at < 0 ? '' : authority.slice(0, at);
    const host = at < 0 ? authority : authority.slice(at + 1);
    if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo) || BAD_ESCAPE.test(userinfo)) return false;
    if (host.startsWith('[')) {
      const close = host.indexOf(']');
      if (close < 0 || !/^(?::\d*)?$/.test(host.slice(close + 1))) return false;
    } else {
      const colon = host.lastIndexOf(':');
      if (colon >= 0 && !/^:\d*$/.test(host.slice(colon))) return false;
      if (BAD_HOST_CHAR.test(host.replace(/%[0-9A-Fa-f]{2}/g, '')) || BAD_ESCAPE.test(host)) return false;
    }
  }
  return !BAD_ESCAPE.test(path);
}

const ATEXT = "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~\\u0080-\\uffff]";
const QUOTED = '"(?:[^"\\\\]|\\\\.)*"';
const DOT_ATOM = `${ATEXT}+(?:\\.${ATEXT}+)*`;
const ADDR_SPEC = `(?:${DOT_ATOM}|${QUOTED})@(?:${DOT_ATOM}|\\[[^\\[\\]\\\\]*\\])`;
const PHRASE = `(?:[A-Za-z0-9!#$%&'*+\\-/=?^_\`{|}~.\\u0080-\\uffff]+|${QUOTED})`;
/**
 * Go's `net/mail.ParseAddress` (kube-openapi's `email`): an address, optionally with a display name
 * (`Jo Smith <jo@example.com>`).
 */
const EMAIL = new RegExp(`^\\s*(?:${ADDR_SPEC}|(?:${PHRASE}(?:\\s+${PHRASE})*\\s*)?<${ADDR_SPEC}>)\\s*$`);

/** The formats, by name without dashes, as ajv format definitions. */
const BY_NORMALIZED_NAME: Record<string, Format> = {
  bsonobjectid: /^[0-9a-f]{24}$/i,
  uri: isRequestUri,
  email: EMAIL,
  hostname: isHostname,
  ipv4: isIPv4,
  ipv6: fromAjv('ipv6'),
  cidr: isCidr,
  mac: MAC,
  uuid: UUID,
  uuid3: UUID3,
  uuid4: uuidVersion('4'),
  uuid5: uuidVersion('5'),
  isbn: (value: string) => isIsbn(value, 10) || isIsbn(value, 13),
  isbn10: (value: string) => isIsbn(value, 10),
  isbn13: (value: string) => isIsbn(value, 13),
  creditcard: isCreditCard,
  ssn: (value: string) => value.length === 11 && /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(value),
  hexcolor: /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i,
  rgbcolor: RGB_COLOR,
  byte: BASE64,
  password: /.*/s,
  date: isDate,
  duration: (value: string) => parseKubeDuration(value) !== undefined,
  datetime: isDateTime,
};

/** The check of a schema's `format` as kube-apiserver makes it, or undefined when it checks none. */
export function kubernetesFormat(name: string): Format | undefined {
  const normalized = name.replace(/-/g, '');
  return Object.hasOwn(BY_NORMALIZED_NAME, normalized) ? BY_NORMALIZED_NAME[normalized] : undefined;
}
