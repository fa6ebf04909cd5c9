import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import { compareQuantities, isQuantity, parseQuantity } from '../../quantity/quantity.js';
import { validateName } from '../storage/names.js';
import { claimSpecCauses } from './core-validation.js';
import {
  duplicate,
  forbidden,
  invalid,
  notFound,
  notSupported,
  objects,
  required,
  tooLong,
} from './field-causes.js';
import { fieldRefCauses, resourceFieldRefCauses } from './pod-validation-env.js';

// A pod's volumes and its containers' mounts as kube-apiserver 1.32 validates them
// (pkg/apis/core/validation ValidateVolumes, validateVolumeSource and the sources' validators,
// validateKeyToPath, ValidateLocalNonReservedPath, validateDownwardAPIVolumeFile,
// validateProjectionSources, ValidateVolumeMounts), after SetDefaults_Volume (a volume without a
// source is an emptyDir; configMap, secret, downwardAPI and projected modes 0644). Kube's paths are
// kept, also where they look odd (`downwarAPI`, `cephFS`, a mount's `subPath` without its index).
// The sources of clouds and storage systems that operators rarely template (iscsi, rbd, cinder, ...)
// count as sources but their fields are not checked.

const FILE_MODE = 'must be a number between 0 and 0777 (octal), both inclusive';

/** The volume sources in validateVolumeSource's order; the path kube reports a second source at. */
const SOURCES: readonly (readonly [string, string])[] = [
  ['emptyDir', 'emptyDir'],
  ['hostPath', 'hostPath'],
  ['gitRepo', 'gitRepo'],
  ['gcePersistentDisk', 'gcePersistentDisk'],
  ['awsElasticBlockStore', 'awsElasticBlockStore'],
  ['secret', 'secret'],
  ['nfs', 'nfs'],
  ['iscsi', 'iscsi'],
  ['glusterfs', 'glusterfs'],
  ['flocker', 'flocker'],
  ['persistentVolumeClaim', 'persistentVolumeClaim'],
  ['rbd', 'rbd'],
  ['cinder', 'cinder'],
  ['cephfs', 'cephFS'],
  ['quobyte', 'quobyte'],
  ['downwardAPI', 'downwarAPI'],
  ['fc', 'fc'],
  ['flexVolume', 'flexVolume'],
  ['configMap', 'configMap'],
  ['azureFile', 'azureFile'],
  ['vsphereVolume', 'vsphereVolume'],
  ['photonPersistentDisk', 'photonPersistentDisk'],
  ['portworxVolume', 'portworxVolume'],
  ['azureDisk', 'azureDisk'],
  ['storageos', 'storageos'],
  ['projected', 'projected'],
  ['scaleIO', 'scaleIO'],
  ['csi', 'csi'],
  ['ephemeral', 'ephemeral'],
  ['image', 'image'],
];

const HOST_PATH_TYPES = [
  '',
  'BlockDevice',
  'CharDevice',
  'Directory',
  'DirectoryOrCreate',
  'File',
  'FileOrCreate',
  'Socket',
] as const;

const VOLUME_FIELD_PATHS = [
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
] as const;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** validatePathNoBacksteps: no `..` element. */
export function noBackstepCauses(p: string, path: string): StatusCause[] {
  return p.replace(/\\/g, '/').split('/').includes('..') ? [invalid(path, p, "must not contain '..'")] : [];
}

/** validateLocalDescendingPath: relative, without `..` elements. */
export function localDescendingCauses(p: string, path: string): StatusCause[] {
  const causes = p.startsWith('/') ? [invalid(path, p, 'must be a relative path')] : [];
  return [...causes, ...noBackstepCauses(p, path)];
}

/** ValidateLocalNonReservedPath: also not starting with `..` (unless `../`, reported already). */
function localNonReservedCauses(p: string, path: string): StatusCause[] {
  const causes = localDescendingCauses(p, path);
  if (p.startsWith('..') && !p.startsWith('../')) causes.push(invalid(path, p, "must not start with '..'"));
  return causes;
}

function modeCauses(mode: unknown, path: string): StatusCause[] {
  return typeof mode === 'number' && (mode < 0 || mode > 0o777) ? [invalid(path, mode, FILE_MODE)] : [];
}

/** validateKeyToPath. */
function keyToPathCauses(item: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (str(item.key) === '') causes.push(required(`${path}.key`));
  if (str(item.path) === '') causes.push(required(`${path}.path`));
  causes.push(...localNonReservedCauses(str(item.path), `${path}.path`));
  causes.push(...modeCauses(item.mode, `${path}.mode`));
  return causes;
}

function itemsCauses(items: unknown, path: string): StatusCause[] {
  return objects(items).flatMap((item, i) => keyToPathCauses(item, `${path}[${i}]`));
}

/** validateDownwardAPIVolumeFile; kube reports an item's errors at the source's path, not the item's. */
function downwardFileCauses(file: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (str(file.path) === '') causes.push(required(`${path}.path`));
  causes.push(...localNonReservedCauses(str(file.path), `${path}.path`));
  if (isObject(file.fieldRef)) {
    causes.push(...fieldRefCauses(file.fieldRef, VOLUME_FIELD_PATHS, `${path}.fieldRef`));
    if (isObject(file.resourceFieldRef))
      causes.push(
        invalid(path, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'),
      );
  } else if (isObject(file.resourceFieldRef))
    causes.push(...resourceFieldRefCauses(file.resourceFieldRef, `${path}.resourceFieldRef`, true));
  else causes.push(required(path, 'one of fieldRef and resourceFieldRef is required'));
  causes.push(...modeCauses(file.mode, `${path}.mode`));
  return causes;
}

/** validateProjectionSources: one kind per source, names, items, unique paths, token lifetimes. */
function projectedCauses(projected: JsonObject, path: string): StatusCause[] {
  const causes = modeCauses(projected.defaultMode, `${path}.defaultMode`);
  const paths = new Set<string>();
  const track = (p: string, value: string): void => {
    if (p === '') return;
    if (paths.has(p)) causes.push(invalid(path, value, 'conflicting duplicate paths'));
    paths.add(p);
  };
  objects(projected.sources).forEach((source, i) => {
    const at = `${path}.sources[${i}]`;
    let kinds = 0;
    for (const kind of ['secret', 'configMap'] as const) {
      const ref = source[kind];
      if (!isObject(ref)) continue;
      kinds++;
      if (str(ref.name) === '') causes.push(required(`${at}.${kind}.name`));
      objects(ref.items).forEach((item, j) => {
        causes.push(...keyToPathCauses(item, `${at}.${kind}.items[${j}]`));
        track(str(item.path), str(ref.name));
      });
    }
    if (isObject(source.downwardAPI)) {
      kinds++;
      for (const file of objects(source.downwardAPI.items)) {
        causes.push(...downwardFileCauses(file, `${at}.downwardAPI`));
        track(str(file.path), str(file.path));
      }
    }
    if (isObject(source.serviceAccountToken)) {
      kinds++;
      const token = source.serviceAccountToken;
      const seconds = typeof token.expirationSeconds === 'number' ? token.expirationSeconds : 0;
      const secondsAt = `${at}.serviceAccountToken.expirationSeconds`;
      if (seconds < 600)
        causes.push(invalid(secondsAt, seconds, 'may not specify a duration less than 10 minutes'));
      if (seconds > 2 ** 32)
        causes.push(invalid(secondsAt, seconds, 'may not specify a duration larger than 2^32 seconds'));
      if (str(token.path) === '') causes.push(required(`${path}.path`));
      else causes.push(...localNonReservedCauses(str(token.path), `${path}.path`));
    }
    if (isObject(source.clusterTrustBundle)) kinds++;
    if (kinds > 1) causes.push(forbidden(at, 'may not specify more than 1 volume type'));
  });
  return causes;
}

/** validateCSIVolumeSource: ValidateCSIDriverName, and the publish secret's name (kube reports it at `name`). */
function csiCauses(csi: JsonObject, path: string): StatusCause[] {
  const driver = str(csi.driver);
  const at = `${path}.driver`;
  const causes: StatusCause[] = [];
  if (driver === '') causes.push(required(at));
  if (driver.length > 63) causes.push(tooLong(at, 63));
  causes.push(
    ...validateName(driver.toLowerCase(), 'subdomain', at).map((c) => ({
      ...c,
      message: c.message.replace(JSON.stringify(driver.toLowerCase()), JSON.stringify(driver)),
    })),
  );
  if (isObject(csi.nodePublishSecretRef)) {
    const name = str(csi.nodePublishSecretRef.name);
    if (name === '') causes.push(required(`${path}.nodePublishSecretRef.name`));
    else causes.push(...validateName(name, 'subdomain', `${path}.name`));
  }
  return causes;
}

/** The checks of one volume source (the first one a volume names). */
function sourceCauses(key: string, src: JsonObject, path: string): StatusCause[] {
  switch (key) {
    case 'emptyDir': {
      const limit = src.sizeLimit;
      if (
        typeof limit === 'string' &&
        isQuantity(limit) &&
        compareQuantities(parseQuantity(limit), parseQuantity('0')) < 0
      )
        return [forbidden(`${path}.sizeLimit`, 'SizeLimit field must be a valid resource quantity')];
      return [];
    }
    case 'hostPath': {
      const p = str(src.path);
      if (p === '') return [required(`${path}.path`)];
      const causes = noBackstepCauses(p, `${path}.path`);
      if (typeof src.type === 'string' && !(HOST_PATH_TYPES as readonly string[]).includes(src.type))
        causes.push(notSupported(`${path}.type`, src.type, HOST_PATH_TYPES));
      return causes;
    }
    case 'secret':
    case 'configMap': {
      const nameKey = key === 'secret' ? 'secretName' : 'name';
      const causes = str(src[nameKey]) === '' ? [required(`${path}.${nameKey}`)] : [];
      causes.push(...modeCauses(src.defaultMode, `${path}.defaultMode`));
      causes.push(...itemsCauses(src.items, `${path}.items`));
      return causes;
    }
    case 'persistentVolumeClaim':
      return str(src.claimName) === '' ? [required(`${path}.claimName`)] : [];
    case 'nfs': {
      const causes: StatusCause[] = [];
      if (str(src.server) === '') causes.push(required(`${path}.server`));
      if (str(src.path) === '') causes.push(required(`${path}.path`));
      if (!str(src.path).startsWith('/'))
        causes.push(invalid(`${path}.path`, str(src.path), 'must be an absolute path'));
      return causes;
    }
    case 'downwardAPI':
      return [
        ...modeCauses(src.defaultMode, `${path}.defaultMode`),
        ...objects(src.items).flatMap((file) => downwardFileCauses(file, path)),
      ];
    case 'projected':
      return projectedCauses(src, path);
    case 'csi':
      return csiCauses(src, path);
    case 'ephemeral':
      return isObject(src.volumeClaimTemplate)
        ? claimSpecCauses(src.volumeClaimTemplate.spec, `${path}.volumeClaimTemplate.spec`)
        : [required(`${path}.volumeClaimTemplate`)];
    default:
      return [];
  }
}

/** validateVolumeSource: exactly one source, and its fields. */
function volumeSourceCauses(v: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  let count = 0;
  for (const [key, reported] of SOURCES) {
    const src = v[key];
    if (src === undefined || src === null) continue;
    if (count > 0) {
      causes.push(forbidden(`${path}.${reported}`, 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    causes.push(...sourceCauses(key, isObject(src) ? src : {}, `${path}.${key}`));
  }
  if (count === 0) causes.push(required(path, 'must specify a volume type'));
  return causes;
}

/**
 * ValidateVolumes at `path`: each volume's source, then its name (a DNS label, unique). Only the
 * volumes without errors can be mounted (kube leaves the others out of the volume map), so a mount
 * of a broken volume is also reported as not found.
 */
export function volumesCauses(
  volumes: unknown,
  path: string,
): { causes: StatusCause[]; mountable: Set<string> } {
  const causes: StatusCause[] = [];
  const mountable = new Set<string>();
  objects(volumes).forEach((v, i) => {
    const at = `${path}[${i}]`;
    const name = str(v.name);
    const own = volumeSourceCauses(v, at);
    if (name === '') own.push(required(`${at}.name`));
    else own.push(...validateName(name, 'label', `${at}.name`));
    if (mountable.has(name)) own.push(duplicate(`${at}.name`, name));
    if (own.length === 0) mountable.add(name);
    else causes.push(...own);
  });
  return { causes, mountable };
}

const PROPAGATIONS = ['Bidirectional', 'HostToContainer', 'None'] as const;
const RECURSIVE_READ_ONLY = ['Disabled', 'IfPossible', 'Enabled'] as const;

/** ValidateVolumeMounts for one container at `path` (its `volumeMounts`). */
export function volumeMountCauses(c: JsonObject, volumes: ReadonlySet<string>, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const mountPaths = new Set<string>();
  const sc = isObject(c.securityContext) ? c.securityContext : {};
  objects(c.volumeMounts).forEach((m, i) => {
    const at = `${path}[${i}]`;
    const name = str(m.name);
    const mountPath = str(m.mountPath);
    if (name === '') causes.push(required(`${at}.name`));
    if (!volumes.has(name)) causes.push(notFound(`${at}.name`, name));
    if (mountPath === '') causes.push(required(`${at}.mountPath`));
    if (mountPaths.has(mountPath)) causes.push(invalid(`${at}.mountPath`, mountPath, 'must be unique'));
    mountPaths.add(mountPath);
    const subPath = str(m.subPath);
    const subPathExpr = str(m.subPathExpr);
    if (subPath !== '') causes.push(...localDescendingCauses(subPath, `${path}.subPath`));
    if (subPathExpr !== '') {
      if (subPath !== '')
        causes.push(
          invalid(`${at}.subPathExpr`, subPathExpr, 'subPathExpr and subPath are mutually exclusive'),
        );
      causes.push(...localDescendingCauses(subPathExpr, `${path}.subPathExpr`));
    }
    const propagation = m.mountPropagation;
    if (typeof propagation === 'string') {
      if (!(PROPAGATIONS as readonly string[]).includes(propagation))
        causes.push(notSupported(`${path}.mountPropagation`, propagation, PROPAGATIONS));
      if (propagation === 'Bidirectional' && sc.privileged !== true)
        causes.push(
          forbidden(
            `${path}.mountPropagation`,
            'Bidirectional mount propagation is available only to privileged containers',
          ),
        );
    }
    const rro = m.recursiveReadOnly;
    if (typeof rro === 'string' && rro !== 'Disabled') {
      const rroAt = `${path}.recursiveReadOnly`;
      if (rro === 'Enabled' || rro === 'IfPossible') {
        if (m.readOnly !== true) causes.push(forbidden(rroAt, 'may only be specified when readOnly is true'));
        if (typeof propagation === 'string' && propagation !== 'None')
          causes.push(
            forbidden(rroAt, 'may only be specified when mountPropagation is None or not specified'),
          );
      } else causes.push(notSupported(rroAt, rro, [...RECURSIVE_READ_ONLY].sort()));
    }
  });
  return causes;
}
