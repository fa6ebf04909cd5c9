/**
 * The string formats kube-apiserver validates in custom resources (kube-openapi's format registry).
 * Any other format (int32, int64, float, double, ...) is not validated, as in Kubernetes; `uri` and
 * `email` follow the Go functions kube-openapi uses (an absolute path is a `uri`, a named address an
 * `email`).
 */
import type { Format } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { parseKubeDuration } from './cel/values.js';

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuidVersion = (v: string): RegExp =>
  new RegExp(`^[0-9a-f]{8}-?[0-9a-f]{4}-?${v}[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`, 'i');
const MAC =
  /^(?:[0-9a-f]{2}(?:[:-][0-9a-f]{2}){5}|[0-9a-f]{2}(?:[:-][0-9a-f]{2}){7}|[0-9a-f]{4}(?:\.[0-9a-f]{4}){2})$/i;

function fromAjv(name: keyof typeof fullFormats): Format {
  return fullFormats[name];
}

function isCidr(value: string): boolean {
  const slash = value.lastIndexOf('/');
  if (slash < 0) return false;
  const ip = value.slice(0, slash);
  const bits = value.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  const n = Number(bits);
  const v4 = fullFormats.ipv4 as RegExp;
  const v6 = fullFormats.ipv6 as RegExp;
  if (v4.test(ip)) return n <= 32;
  return v6.test(ip) && n <= 128;
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

/** The formats, by name, as ajv format definitions. */
export const KUBERNETES_FORMATS: Record<string, Format> = {
  uri: isRequestUri,
  email: EMAIL,
  hostname: fromAjv('hostname'),
  ipv4: fromAjv('ipv4'),
  ipv6: fromAjv('ipv6'),
  cidr: isCidr,
  mac: MAC,
  uuid: UUID,
  uuid3: uuidVersion('3'),
  uuid4: uuidVersion('4'),
  uuid5: uuidVersion('5'),
  byte: fromAjv('byte'),
  date: fromAjv('date'),
  'date-time': fromAjv('date-time'),
  datetime: fromAjv('date-time'),
  duration: (value: string) => parseKubeDuration(value) !== undefined,
  hexcolor: /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i,
  rgbcolor: /^rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\)$/,
  password: /.*/s,
};

/** The names of {@link KUBERNETES_FORMATS}. */
export const KUBERNETES_STRING_FORMATS: ReadonlySet<string> = new Set(Object.keys(KUBERNETES_FORMATS));
