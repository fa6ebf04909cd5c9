import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import { canonicalQuantity, compareQuantities, isQuantity, parseQuantity } from '../../quantity/quantity.js';
import { forbidden, invalid, notSupported, regexError, required, strings, tooLong } from './field-causes.js';

// What kube-apiserver 1.32 refuses in ConfigMaps, Secrets and PersistentVolumeClaims beyond their
// schema types (pkg/apis/core/validation ValidateConfigMap, ValidateSecret,
// ValidatePersistentVolumeClaimSpec), with kube's paths and wording.

/** core.MaxSecretSize: what a Secret's or a ConfigMap's data may hold in all. */
const MAX_SECRET_SIZE = 1024 * 1024;
const CONFIG_KEY_FMT = '[-._a-zA-Z0-9]+';
const CONFIG_KEY_RE = /^[-._a-zA-Z0-9]+$/;

/** validation.IsConfigMapKey: the key of a ConfigMap's or a Secret's data. */
export function configKeyProblems(key: string): string[] {
  const problems: string[] = [];
  if (key.length > 253) problems.push('must be no more than 253 characters');
  if (!CONFIG_KEY_RE.test(key))
    problems.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        CONFIG_KEY_FMT,
        'key.name',
        'KEY_NAME',
        'key-name',
      ),
    );
  if (key === '.') problems.push("must not be '.'");
  else if (key === '..') problems.push("must not be '..'");
  else if (key.startsWith('..')) problems.push("must not start with '..'");
  return problems;
}

const entries = (v: unknown): [string, unknown][] => (isObject(v) ? Object.entries(v) : []);
const decodedLength = (v: unknown): number => (typeof v === 'string' ? Buffer.from(v, 'base64').length : 0);

/** ValidateConfigMap: keys of data and binaryData, no key in both, the total size. */
export function configMapCauses(o: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const binary = isObject(o.binaryData) ? o.binaryData : {};
  let size = 0;
  for (const [key, value] of entries(o.data)) {
    for (const m of configKeyProblems(key)) causes.push(invalid(`data[${key}]`, key, m));
    if (Object.hasOwn(binary, key))
      causes.push(invalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
    if (typeof value === 'string') size += Buffer.byteLength(value, 'utf8');
  }
  for (const [key, value] of entries(o.binaryData)) {
    for (const m of configKeyProblems(key)) causes.push(invalid(`binaryData[${key}]`, key, m));
    size += decodedLength(value);
  }
  if (size > MAX_SECRET_SIZE) causes.push(tooLong('', MAX_SECRET_SIZE));
  return causes;
}

const REDACTED = '<secret contents redacted>';

/** What Go's json.Unmarshal into a map says of a Docker config that is not a JSON object. */
function dockerConfigProblem(base64: unknown): string | undefined {
  const text = Buffer.from(typeof base64 === 'string' ? base64 : '', 'base64').toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const trimmed = text.trim();
    if (trimmed === '') return 'unexpected end of JSON input';
    const c = trimmed[0] ?? '';
    if (!/[[{"\-0-9tfn]/.test(c)) return `invalid character '${c}' looking for beginning of value`;
    return 'unexpected end of JSON input';
  }
  if (parsed === null || isObject(parsed)) return undefined;
  const type = Array.isArray(parsed) ? 'array' : typeof parsed === 'boolean' ? 'bool' : typeof parsed;
  return `json: cannot unmarshal ${type} into Go value of type map[string]interface {}`;
}

/**
 * ValidateSecret (on the data with stringData folded in): keys, the total size, and the keys its
 * type requires (a TLS Secret's tls.crt and tls.key, a Docker config, basic-auth credentials, an SSH
 * key, a service account token's service account name).
 */
export function secretCauses(o: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const data = isObject(o.data) ? o.data : {};
  let size = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const m of configKeyProblems(key)) causes.push(invalid(`data[${key}]`, key, m));
    size += decodedLength(value);
  }
  if (size > MAX_SECRET_SIZE) causes.push(tooLong('data', MAX_SECRET_SIZE));
  const has = (k: string): boolean => data[k] !== undefined && data[k] !== null;
  switch (o.type) {
    case 'kubernetes.io/service-account-token': {
      const meta = isObject(o.metadata) ? o.metadata : {};
      const annotations = isObject(meta.annotations) ? meta.annotations : {};
      const name = annotations['kubernetes.io/service-account.name'];
      if (typeof name !== 'string' || name === '')
        causes.push(required('metadata.annotations[kubernetes.io/service-account.name]'));
      break;
    }
    case 'kubernetes.io/dockercfg':
    case 'kubernetes.io/dockerconfigjson': {
      const key = o.type === 'kubernetes.io/dockercfg' ? '.dockercfg' : '.dockerconfigjson';
      if (!has(key)) causes.push(required(`data[${key}]`));
      else {
        const problem = dockerConfigProblem(data[key]);
        if (problem !== undefined) causes.push(invalid(`data[${key}]`, REDACTED, problem));
      }
      break;
    }
    case 'kubernetes.io/basic-auth':
      if (!has('username') && !has('password'))
        causes.push(required('data[username]'), required('data[password]'));
      break;
    case 'kubernetes.io/ssh-auth':
      if (decodedLength(data['ssh-privatekey']) === 0) causes.push(required('data[ssh-privatekey]'));
      break;
    case 'kubernetes.io/tls':
      if (!has('tls.crt')) causes.push(required('data[tls.crt]'));
      if (!has('tls.key')) causes.push(required('data[tls.key]'));
      break;
    default:
  }
  return causes;
}

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'] as const;
const VOLUME_MODES = ['Block', 'Filesystem'] as const;

/**
 * ValidatePersistentVolumeClaimSpec at `path`: at least one supported access mode (ReadWriteOncePod
 * alone), a storage request greater than zero, a known volume mode.
 */
export function claimSpecCauses(spec: unknown, path: string): StatusCause[] {
  const s = isObject(spec) ? spec : {};
  const causes: StatusCause[] = [];
  const modes = strings(s.accessModes);
  if (modes.length === 0) causes.push(required(`${path}.accessModes`, 'at least 1 access mode is required'));
  let oncePod = false;
  let other = false;
  for (const mode of modes) {
    if (!(ACCESS_MODES as readonly string[]).includes(mode))
      causes.push(notSupported(`${path}.accessModes`, mode, ACCESS_MODES));
    else if (mode === 'ReadWriteOncePod') oncePod = true;
    else other = true;
  }
  if (oncePod && other)
    causes.push(forbidden(`${path}.accessModes`, 'may not use ReadWriteOncePod with other access modes'));
  const resources = isObject(s.resources) ? s.resources : {};
  const requests = isObject(resources.requests) ? resources.requests : {};
  const storage = requests.storage;
  const storagePath = `${path}.resources[storage]`;
  if (storage === undefined || storage === null) causes.push(required(storagePath));
  else if (typeof storage === 'string' && isQuantity(storage)) {
    if (compareQuantities(parseQuantity(storage), parseQuantity('0')) <= 0)
      causes.push(invalid(storagePath, canonicalQuantity(storage), 'must be greater than zero'));
  }
  if (typeof s.volumeMode === 'string' && !(VOLUME_MODES as readonly string[]).includes(s.volumeMode))
    causes.push(notSupported(`${path}.volumeMode`, s.volumeMode, VOLUME_MODES));
  return causes;
}
