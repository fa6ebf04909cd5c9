import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import { duplicate, invalid, notSupported, required } from './field-causes.js';
import { localDescendingCauses } from './pod-validation-volumes.js';

// The security contexts of a pod and of its containers as kube-apiserver 1.32 validates them
// (pkg/apis/core/validation validatePodSpecSecurityContext, ValidateSecurityContext,
// validateSeccompProfileField, ValidateAppArmorProfileField, validateSysctls, ValidateProcMountType).
// Kube does not check capability names; it only refuses CAP_SYS_ADMIN beside
// allowPrivilegeEscalation false. Where kube prints a whole Go struct as the invalid value (the
// container's security context, a seccomp profile), we print its JSON. `privileged` is taken as
// allowed (kube-apiserver's --allow-privileged, which clusters set), and Windows options are not
// checked.

/** InclusiveRangeError(0, math.MaxInt32): IsValidUserID and IsValidGroupID. */
const ID_RANGE = 'must be between 0 and 2147483647, inclusive';

function idCauses(v: unknown, path: string): StatusCause[] {
  return typeof v === 'number' && (v < 0 || v > 2147483647) ? [invalid(path, v, ID_RANGE)] : [];
}

const PROFILE_TYPES = ['Localhost', 'RuntimeDefault', 'Unconfined'] as const;

/** validateSeccompProfileField. */
function seccompCauses(profile: unknown, path: string): StatusCause[] {
  if (!isObject(profile)) return [];
  const causes: StatusCause[] = [];
  const type = typeof profile.type === 'string' ? profile.type : '';
  if (type === '') causes.push(required(`${path}.type`, 'type is required when seccompProfile is set'));
  else if (!(PROFILE_TYPES as readonly string[]).includes(type))
    causes.push(notSupported(`${path}.type`, type, PROFILE_TYPES));
  const local = profile.localhostProfile;
  if (type === 'Localhost') {
    if (typeof local !== 'string')
      causes.push(required(`${path}.localhostProfile`, 'must be set when seccomp type is Localhost'));
    else causes.push(...localDescendingCauses(local, `${path}.localhostProfile`));
  } else if (typeof local === 'string')
    causes.push(
      invalid(`${path}.localhostProfile`, profile, 'can only be set when seccomp type is Localhost'),
    );
  return causes;
}

/** ValidateAppArmorProfileField. */
function appArmorCauses(profile: unknown, path: string): StatusCause[] {
  if (!isObject(profile)) return [];
  const local = profile.localhostProfile;
  switch (profile.type) {
    case 'Localhost':
      if (typeof local !== 'string')
        return [required(`${path}.localhostProfile`, 'must be set when AppArmor type is Localhost')];
      if (local.trim() !== local)
        return [invalid(`${path}.localhostProfile`, local, 'must not be padded with whitespace')];
      if (local === '')
        return [required(`${path}.localhostProfile`, 'must be set when AppArmor type is Localhost')];
      return [];
    case 'RuntimeDefault':
    case 'Unconfined':
      return typeof local === 'string'
        ? [invalid(`${path}.localhostProfile`, local, 'can only be set when AppArmor type is Localhost')]
        : [];
    case undefined:
    case null:
    case '':
      return [required(`${path}.type`, 'type is required when appArmorProfile is set')];
    default:
      return [notSupported(`${path}.type`, profile.type, PROFILE_TYPES)];
  }
}

const SYSCTL_SEGMENT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const SYSCTL_RE = `^(${SYSCTL_SEGMENT}[\\./])*${SYSCTL_SEGMENT}$`;

/** validateSysctls: names present, well formed, unique. */
function sysctlCauses(sysctls: unknown, path: string): StatusCause[] {
  if (!Array.isArray(sysctls)) return [];
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  sysctls.forEach((s, i) => {
    const name = isObject(s) && typeof s.name === 'string' ? s.name : '';
    const at = `${path}[${i}].name`;
    if (name === '') causes.push(required(at));
    else if (name.length > 253 || !new RegExp(SYSCTL_RE).test(name))
      causes.push(invalid(at, name, `must have at most 253 characters and match regex ${SYSCTL_RE}`));
    else if (names.has(name)) causes.push(duplicate(at, name));
    names.add(name);
  });
  return causes;
}

/** validatePodSpecSecurityContext at `path` (`spec.securityContext`); `spec` is the pod spec. */
export function podSecurityContextCauses(spec: JsonObject, path: string): StatusCause[] {
  const sc = spec.securityContext;
  if (!isObject(sc)) return [];
  const causes = [
    ...idCauses(sc.fsGroup, `${path}.fsGroup`),
    ...idCauses(sc.runAsUser, `${path}.runAsUser`),
    ...idCauses(sc.runAsGroup, `${path}.runAsGroup`),
  ];
  if (Array.isArray(sc.supplementalGroups))
    sc.supplementalGroups.forEach((g, i) => causes.push(...idCauses(g, `${path}.supplementalGroups[${i}]`)));
  // kube keeps shareProcessNamespace and hostPID in its internal security context, and reports there
  if (spec.shareProcessNamespace === true && spec.hostPID === true)
    causes.push(
      invalid(
        `${path}.shareProcessNamespace`,
        true,
        'ShareProcessNamespace and HostPID cannot both be enabled',
      ),
    );
  causes.push(...sysctlCauses(sc.sysctls, `${path}.sysctls`));
  const policy = sc.fsGroupChangePolicy;
  if (typeof policy === 'string' && policy !== 'Always' && policy !== 'OnRootMismatch')
    causes.push(notSupported(`${path}.fsGroupChangePolicy`, policy, ['Always', 'OnRootMismatch']));
  causes.push(...seccompCauses(sc.seccompProfile, `${path}.seccompProfile`));
  causes.push(...appArmorCauses(sc.appArmorProfile, `${path}.appArmorProfile`));
  return causes;
}

/**
 * ValidateSecurityContext for a container's security context at `path`; `hostUsers` is the pod's
 * (true unless the pod sets `hostUsers: false`).
 */
export function containerSecurityContextCauses(sc: unknown, path: string, hostUsers: boolean): StatusCause[] {
  if (!isObject(sc)) return [];
  const causes = [
    ...idCauses(sc.runAsUser, `${path}.runAsUser`),
    ...idCauses(sc.runAsGroup, `${path}.runAsGroup`),
  ];
  const procMount = sc.procMount;
  if (typeof procMount === 'string') {
    if (procMount !== 'Default' && procMount !== 'Unmasked')
      causes.push(notSupported(`${path}.procMount`, procMount, ['Default', 'Unmasked']));
    if (hostUsers && procMount === 'Unmasked')
      causes.push(invalid(`${path}.procMount`, procMount, '`hostUsers` must be false to use `Unmasked`'));
  }
  causes.push(...seccompCauses(sc.seccompProfile, `${path}.seccompProfile`));
  if (sc.allowPrivilegeEscalation === false) {
    if (sc.privileged === true)
      causes.push(
        invalid(path, sc, 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'),
      );
    const add = isObject(sc.capabilities) && Array.isArray(sc.capabilities.add) ? sc.capabilities.add : [];
    for (const cap of add)
      if (cap === 'CAP_SYS_ADMIN')
        causes.push(
          invalid(
            path,
            sc,
            'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN',
          ),
        );
  }
  causes.push(...appArmorCauses(sc.appArmorProfile, `${path}.appArmorProfile`));
  return causes;
}
