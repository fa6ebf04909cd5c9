import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';

/** kube-apiserver's default `--service-node-port-range`. */
export const NODE_PORT_MIN = 30000;
export const NODE_PORT_MAX = 32767;

/**
 * Picks free node ports as kube-apiserver's allocator does: at random in 30000-32767, never one in
 * use. What is in use is read from the stored Services on every allocation, so a deleted Service's
 * ports are free again at once.
 */
export class NodePortAllocator {
  constructor(private readonly random: () => number = Math.random) {}

  /** A free port, given the ports in use; undefined when the range is full. */
  allocate(used: ReadonlySet<number>): number | undefined {
    const size = NODE_PORT_MAX - NODE_PORT_MIN + 1;
    if (used.size >= size) return undefined;
    const start = Math.floor(this.random() * size);
    for (let i = 0; i < size; i++) {
      const p = NODE_PORT_MIN + ((start + i) % size);
      if (!used.has(p)) return p;
    }
    return undefined;
  }
}

/** The node ports (including health-check ports) a stored Service holds. */
export function nodePortsOf(service: JsonObject): number[] {
  const spec = isObject(service.spec) ? service.spec : {};
  const out: number[] = [];
  if (Array.isArray(spec.ports))
    for (const p of spec.ports) if (isObject(p) && typeof p.nodePort === 'number') out.push(p.nodePort);
  if (typeof spec.healthCheckNodePort === 'number') out.push(spec.healthCheckNodePort);
  return out;
}

function samePort(a: JsonObject, b: JsonObject): boolean {
  return a.port === b.port && (a.protocol ?? 'TCP') === (b.protocol ?? 'TCP');
}

/**
 * Allocates and checks the node ports of a Service spec (`old`: the stored one on update): NodePort
 * and LoadBalancer ports get one when absent (kept from the old spec for the same port), a
 * requested one must be in range and free, `healthCheckNodePort` is allocated for a LoadBalancer
 * with `externalTrafficPolicy: Local`, and a ClusterIP Service loses ports left from its old type.
 */
export function allocateNodePorts(
  spec: JsonObject,
  old: JsonObject | undefined,
  inUse: () => Set<number>,
  allocator: NodePortAllocator,
): StatusCause[] {
  const causes: StatusCause[] = [];
  const ports = Array.isArray(spec.ports) ? spec.ports.filter(isObject) : [];
  const oldPorts = old && Array.isArray(old.ports) ? old.ports.filter(isObject) : [];
  const oldHeld = new Set(old ? nodePortsOf({ spec: old }) : []);
  const wantsNodePorts = spec.type === 'NodePort' || spec.type === 'LoadBalancer';
  if (!wantsNodePorts) {
    ports.forEach((p, i) => {
      if (p.nodePort === undefined) return;
      const prev = oldPorts.find((o) => samePort(o, p));
      // left over from a NodePort/LoadBalancer type: dropped, as kube-apiserver does on a type change
      if (old && prev?.nodePort === p.nodePort && (old.type === 'NodePort' || old.type === 'LoadBalancer'))
        delete p.nodePort;
      else if (spec.type === 'ClusterIP' || spec.type === 'ExternalName')
        causes.push({
          reason: 'FieldValueForbidden',
          field: `spec.ports[${i}].nodePort`,
          message: `Forbidden: may not be used when \`type\` is '${String(spec.type)}'`,
        });
    });
    if (spec.healthCheckNodePort !== undefined && old?.healthCheckNodePort === spec.healthCheckNodePort)
      delete spec.healthCheckNodePort;
    return causes;
  }
  let used: Set<number> | undefined;
  const taken = (): Set<number> => (used ??= inUse());
  const claimed = new Set<number>();
  const check = (port: unknown, field: string): void => {
    if (typeof port !== 'number' || !Number.isInteger(port)) return;
    if (port < NODE_PORT_MIN || port > NODE_PORT_MAX) {
      causes.push({
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: ${port}: provided port is not in the valid range. The range of valid ports is ${NODE_PORT_MIN}-${NODE_PORT_MAX}`,
      });
    } else if ((taken().has(port) && !oldHeld.has(port)) || claimed.has(port)) {
      causes.push({
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: ${port}: provided port is already allocated`,
      });
    }
    claimed.add(port);
  };
  ports.forEach((p, i) => {
    if (p.nodePort === undefined || p.nodePort === 0) {
      const prev = oldPorts.find((o) => samePort(o, p) && typeof o.nodePort === 'number');
      if (prev) p.nodePort = prev.nodePort;
    } else check(p.nodePort, `spec.ports[${i}].nodePort`);
    if (typeof p.nodePort === 'number') claimed.add(p.nodePort);
  });
  const needsHealthCheck = spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
  if (needsHealthCheck) {
    if (spec.healthCheckNodePort === undefined || spec.healthCheckNodePort === 0) {
      if (typeof old?.healthCheckNodePort === 'number') spec.healthCheckNodePort = old.healthCheckNodePort;
    } else check(spec.healthCheckNodePort, 'spec.healthCheckNodePort');
  } else if (spec.healthCheckNodePort !== undefined) {
    if (old?.healthCheckNodePort === spec.healthCheckNodePort) delete spec.healthCheckNodePort;
    else
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'spec.healthCheckNodePort',
        message: `Invalid value: ${JSON.stringify(spec.healthCheckNodePort)}: may only be set when \`type\` is 'LoadBalancer' and \`externalTrafficPolicy\` is 'Local'`,
      });
  }
  if (causes.length > 0) return causes;
  const busy = (): Set<number> => new Set([...taken(), ...claimed]);
  const give = (): number | undefined => {
    const p = allocator.allocate(busy());
    if (p !== undefined) claimed.add(p);
    return p;
  };
  // a LoadBalancer with allocateLoadBalancerNodePorts: false gets only the node ports it asks for
  const allocatesPorts = !(spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === false);
  for (const p of ports) {
    if (typeof p.nodePort === 'number' && p.nodePort !== 0) continue;
    if (!allocatesPorts) {
      delete p.nodePort;
      continue;
    }
    const n = give();
    if (n === undefined)
      return [{ reason: 'FieldValueInvalid', field: 'spec.ports', message: 'range is full' }];
    p.nodePort = n;
  }
  if (needsHealthCheck && (spec.healthCheckNodePort === undefined || spec.healthCheckNodePort === 0)) {
    const n = give();
    if (n !== undefined) spec.healthCheckNodePort = n;
  }
  return causes;
}
