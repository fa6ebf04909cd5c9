/**
 * The string formats kube-apiserver validates in custom resources (kube-openapi's format registry).
 * Any other format (int32, int64, float, double, ...) is not validated, as in Kubernetes.
 */
import type { Format } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuidVersion = (v: string): RegExp =>
  new RegExp(`^[0-9a-f]{8}-?[0-9a-f]{4}-?${v}[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`, 'i');
const GO_DURATION = /^[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)\s*(?:ns|us|µs|ms|s|m|h|d|w))+$|^[-+]?0$/;
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

/** The formats, by name, as ajv format definitions. */
export const KUBERNETES_FORMATS: Record<string, Format> = {
  uri: fromAjv('uri'),
  email: fromAjv('email'),
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
  duration: GO_DURATION,
  hexcolor: /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i,
  rgbcolor: /^rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\)$/,
  password: /.*/s,
};

/** The names of {@link KUBERNETES_FORMATS}. */
export const KUBERNETES_STRING_FORMATS: ReadonlySet<string> = new Set(Object.keys(KUBERNETES_FORMATS));
