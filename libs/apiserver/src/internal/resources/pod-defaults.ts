import type { JsonObject } from '../../types.js';
import { isObject } from '../common/json.js';
import { defaultPullPolicy } from './image-reference.js';

/**
 * The defaults kube-apiserver fills into a PodSpec wherever one appears (a Pod, a workload's pod
 * template): pkg/apis/core/v1/defaults.go's SetDefaults_PodSpec, SetDefaults_Container,
 * SetDefaults_Probe, SetDefaults_HTTPGetAction, SetDefaults_ObjectFieldSelector, SetDefaults_Volume
 * and the volume sources' defaulters, called where the generated zz_generated.defaults.go calls
 * them, plus the `+default` markers of the types (container and service port protocol, a gRPC
 * probe's service). Each default is set only when the field is absent (or, for Go fields that are
 * no pointers, zero), as kube does. SetDefaults_Pod's Pod-only defaults are in {@link defaultPodOnly}.
 */

function set(obj: JsonObject, key: string, value: unknown): void {
  if (obj[key] === undefined) obj[key] = value;
}

/** A plain (non-pointer) Go field: its zero value is defaulted like an absent one. */
function setIfZero(obj: JsonObject, key: string, value: unknown): void {
  const v = obj[key];
  if (v === undefined || v === 0 || v === '') obj[key] = value;
}

function objects(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function child(parent: JsonObject, key: string): JsonObject | undefined {
  const v = parent[key];
  return isObject(v) ? v : undefined;
}

/** SetDefaults_ObjectFieldSelector: a fieldRef's apiVersion is v1. */
function defaultFieldRef(holder: JsonObject): void {
  const ref = child(holder, 'fieldRef');
  if (ref) setIfZero(ref, 'apiVersion', 'v1');
}

/** SetDefaults_HTTPGetAction. */
function defaultHttpGet(handler: JsonObject | undefined): void {
  const get = handler && child(handler, 'httpGet');
  if (!get) return;
  setIfZero(get, 'path', '/');
  setIfZero(get, 'scheme', 'HTTP');
}

/** SetDefaults_Probe, its handler's httpGet, and the `+default=""` of a gRPC probe's service. */
function defaultProbe(probe: JsonObject | undefined): void {
  if (!probe) return;
  setIfZero(probe, 'timeoutSeconds', 1);
  setIfZero(probe, 'periodSeconds', 10);
  setIfZero(probe, 'successThreshold', 1);
  setIfZero(probe, 'failureThreshold', 3);
  defaultHttpGet(probe);
  const grpc = child(probe, 'grpc');
  if (grpc) set(grpc, 'service', '');
}

/** SetDefaults_Container (also for init and ephemeral containers) and what the generated code adds. */
function defaultContainer(c: JsonObject): void {
  setIfZero(c, 'imagePullPolicy', defaultPullPolicy(c.image));
  setIfZero(c, 'terminationMessagePath', '/dev/termination-log');
  setIfZero(c, 'terminationMessagePolicy', 'File');
  set(c, 'resources', {});
  for (const p of objects(c.ports)) setIfZero(p, 'protocol', 'TCP');
  for (const e of objects(c.env)) {
    const from = child(e, 'valueFrom');
    if (from) defaultFieldRef(from);
  }
  for (const key of ['livenessProbe', 'readinessProbe', 'startupProbe']) defaultProbe(child(c, key));
  const lifecycle = child(c, 'lifecycle');
  if (lifecycle) {
    defaultHttpGet(child(lifecycle, 'postStart'));
    defaultHttpGet(child(lifecycle, 'preStop'));
  }
}

/** SetDefaults_PersistentVolumeClaimSpec. */
export function defaultClaimSpec(spec: JsonObject | undefined): void {
  if (spec) set(spec, 'volumeMode', 'Filesystem');
}

/** Permissions of configMap, secret, downwardAPI and projected volumes (0644). */
const DEFAULT_MODE = 0o644;

/** SetDefaults_Volume and the defaulters of its source. */
function defaultVolume(v: JsonObject): void {
  let sources = 0;
  for (const k in v) if (k !== 'name' && v[k] !== undefined) sources++;
  if (sources === 0) {
    v.emptyDir = {};
    return;
  }
  const hostPath = child(v, 'hostPath');
  if (hostPath) set(hostPath, 'type', '');
  for (const key of ['secret', 'configMap']) {
    const src = child(v, key);
    if (src) set(src, 'defaultMode', DEFAULT_MODE);
  }
  const downward = child(v, 'downwardAPI');
  if (downward) {
    set(downward, 'defaultMode', DEFAULT_MODE);
    for (const item of objects(downward.items)) defaultFieldRef(item);
  }
  const projected = child(v, 'projected');
  if (projected) {
    set(projected, 'defaultMode', DEFAULT_MODE);
    for (const s of objects(projected.sources)) {
      const d = child(s, 'downwardAPI');
      if (d) for (const item of objects(d.items)) defaultFieldRef(item);
      const token = child(s, 'serviceAccountToken');
      if (token) set(token, 'expirationSeconds', 3600);
    }
  }
  const ephemeral = child(v, 'ephemeral');
  const claim = ephemeral && child(ephemeral, 'volumeClaimTemplate');
  if (claim) defaultClaimSpec(child(claim, 'spec'));
}

/** The defaults of a PodSpec (a Pod's or a template's). */
export function defaultPodSpec(spec: JsonObject): void {
  setIfZero(spec, 'dnsPolicy', 'ClusterFirst');
  setIfZero(spec, 'restartPolicy', 'Always');
  set(spec, 'securityContext', {});
  set(spec, 'terminationGracePeriodSeconds', 30);
  setIfZero(spec, 'schedulerName', 'default-scheduler');
  for (const key of ['containers', 'initContainers', 'ephemeralContainers'])
    for (const c of objects(spec[key])) defaultContainer(c);
  for (const v of objects(spec.volumes)) defaultVolume(v);
}

/**
 * SetDefaults_Pod, which runs on Pods only (not on pod templates): a container's (and init
 * container's) requests default to its limits, resource by resource, and on the host network each
 * container port's hostPort defaults to its containerPort.
 */
export function defaultPodOnly(spec: JsonObject): void {
  for (const key of ['containers', 'initContainers']) {
    for (const c of objects(spec[key])) {
      const resources = child(c, 'resources');
      const limits = resources && child(resources, 'limits');
      if (!resources || !limits) continue;
      const requests = child(resources, 'requests') ?? {};
      for (const [name, q] of Object.entries(limits)) if (requests[name] === undefined) requests[name] = q;
      if (Object.keys(requests).length > 0) resources.requests = requests;
    }
  }
  set(spec, 'enableServiceLinks', true);
  if (spec.hostNetwork === true) {
    for (const key of ['containers', 'initContainers'])
      for (const c of objects(spec[key]))
        for (const p of objects(c.ports))
          if (p.hostPort === undefined || p.hostPort === 0) p.hostPort = p.containerPort;
  }
}
