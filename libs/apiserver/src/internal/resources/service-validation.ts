import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import { labelKeyErrors, labelValueErrors } from '../../selectors/label-validation.js';
import { validateName } from '../storage/names.js';
import { duplicate, invalid, notSupported, required } from './field-causes.js';
import { PORT_RANGE, portNameProblems, PROTOCOLS } from './workload-validation.js';

// ValidateService's rules beyond the schema types (pkg/apis/core/validation): ports (required but for
// headless and ExternalName Services, names required when there are several and unique, numbers and
// target ports in range, a known protocol), the type, an ExternalName's name and the selector's labels.

const TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'] as const;

/** ValidatePortNumOrName: a number in range or an IANA service name. */
function portNumOrNameCauses(v: unknown, field: string): StatusCause[] {
  if (typeof v === 'number') return v >= 1 && v <= 65535 ? [] : [invalid(field, v, PORT_RANGE)];
  if (typeof v === 'string') return portNameProblems(v).map((m) => invalid(field, v, m));
  return [];
}

/** The causes of a 422 for a Service's spec (defaulted). */
export function serviceSpecCauses(spec: JsonObject | undefined): StatusCause[] {
  const s = spec ?? {};
  const causes: StatusCause[] = [];
  const type = typeof s.type === 'string' ? s.type : 'ClusterIP';
  if (!(TYPES as readonly string[]).includes(type)) causes.push(notSupported('spec.type', type, TYPES));
  if (type === 'ExternalName' && (typeof s.externalName !== 'string' || s.externalName === ''))
    causes.push(required('spec.externalName'));
  const ports = Array.isArray(s.ports) ? s.ports.filter(isObject) : [];
  const headless = s.clusterIP === 'None';
  if (ports.length === 0 && !headless && type !== 'ExternalName') causes.push(required('spec.ports'));
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const at = `spec.ports[${i}]`;
    const name = typeof p.name === 'string' ? p.name : '';
    if (ports.length > 1 && name === '') causes.push(required(`${at}.name`));
    if (name !== '') {
      causes.push(...validateName(name, 'label', `${at}.name`));
      if (names.has(name)) causes.push(duplicate(`${at}.name`, name));
      names.add(name);
    }
    if (typeof p.port === 'number' && (p.port < 1 || p.port > 65535))
      causes.push(invalid(`${at}.port`, p.port, PORT_RANGE));
    if (typeof p.protocol === 'string' && !(PROTOCOLS as readonly string[]).includes(p.protocol))
      causes.push(notSupported(`${at}.protocol`, p.protocol, PROTOCOLS));
    if (!headless) causes.push(...portNumOrNameCauses(p.targetPort, `${at}.targetPort`));
  });
  if (isObject(s.selector))
    for (const [k, v] of Object.entries(s.selector)) {
      for (const m of labelKeyErrors(k)) causes.push(invalid('spec.selector', k, m));
      if (typeof v === 'string')
        for (const m of labelValueErrors(v)) causes.push(invalid('spec.selector', v, m));
    }
  return causes;
}
