import type { JsonObject } from '../../types.js';
import { ApiError } from '../common/errors.js';

/**
 * A small decoder of Kubernetes' protobuf request bodies (`application/vnd.kubernetes.protobuf`):
 * the `k8s\0` envelope (runtime.Unknown) and the messages kubectl's typed commands send (`create
 * namespace|configmap|secret|serviceaccount|deployment|job|cronjob|service|ingress`, `create
 * role|clusterrole|rolebinding|clusterrolebinding`, `create token`, `auth reconcile`, `auth can-i`,
 * `auth whoami`).
 * Other kinds answer 415 and ask for JSON.
 */
type FieldType =
  | 'string'
  | 'bytes'
  | 'bool'
  | 'int'
  | 'message'
  | 'map'
  | 'mapBytes'
  /** map<string, resource.Quantity>: a Quantity is a message whose field 1 is its string */
  | 'mapQuantity'
  | 'intOrString';

interface Field {
  name: string;
  type: FieldType;
  repeated?: boolean;
  schema?: Schema;
  /**
   * A pointer field in Go (`*int32`, `*bool`): a zero value is meaningful and kept. Other scalar
   * fields are omitted when zero, as Go's JSON `omitempty` does, since gogo-protobuf writes them.
   */
  pointer?: boolean;
  /**
   * A Go struct embedded with `json:",inline"` (an Ingress rule's `IngressRuleValue`): its fields
   * land in the enclosing object instead of under `name`.
   */
  inline?: boolean;
}

type Schema = Record<number, Field>;

const OWNER_REFERENCE: Schema = {
  1: { name: 'kind', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
  6: { name: 'controller', type: 'bool', pointer: true },
  7: { name: 'blockOwnerDeletion', type: 'bool', pointer: true },
};

const OBJECT_META: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'generateName', type: 'string' },
  3: { name: 'namespace', type: 'string' },
  5: { name: 'uid', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  7: { name: 'generation', type: 'int' },
  11: { name: 'labels', type: 'map' },
  12: { name: 'annotations', type: 'map' },
  13: { name: 'ownerReferences', type: 'message', repeated: true, schema: OWNER_REFERENCE },
  14: { name: 'finalizers', type: 'string', repeated: true },
};

const OBJECT_REFERENCE: Schema = {
  1: { name: 'kind', type: 'string' },
  2: { name: 'namespace', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  7: { name: 'fieldPath', type: 'string' },
};

const LOCAL_OBJECT_REFERENCE: Schema = { 1: { name: 'name', type: 'string' } };

const META: Field = { name: 'metadata', type: 'message', schema: OBJECT_META };

const LABEL_SELECTOR: Schema = {
  1: { name: 'matchLabels', type: 'map' },
  2: {
    name: 'matchExpressions',
    type: 'message',
    repeated: true,
    schema: {
      1: { name: 'key', type: 'string' },
      2: { name: 'operator', type: 'string' },
      3: { name: 'values', type: 'string', repeated: true },
    },
  },
};

const CONTAINER: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'image', type: 'string' },
  3: { name: 'command', type: 'string', repeated: true },
  4: { name: 'args', type: 'string', repeated: true },
  5: { name: 'workingDir', type: 'string' },
  6: {
    name: 'ports',
    type: 'message',
    repeated: true,
    schema: {
      1: { name: 'name', type: 'string' },
      2: { name: 'hostPort', type: 'int' },
      3: { name: 'containerPort', type: 'int' },
      4: { name: 'protocol', type: 'string' },
      5: { name: 'hostIP', type: 'string' },
    },
  },
  7: {
    name: 'env',
    type: 'message',
    repeated: true,
    schema: { 1: { name: 'name', type: 'string' }, 2: { name: 'value', type: 'string' } },
  },
  8: { name: 'resources', type: 'message', schema: {} },
  13: { name: 'terminationMessagePath', type: 'string' },
  14: { name: 'imagePullPolicy', type: 'string' },
  20: { name: 'terminationMessagePolicy', type: 'string' },
};

const POD_TEMPLATE: Schema = {
  1: META_FIELD(),
  2: {
    name: 'spec',
    type: 'message',
    schema: {
      2: { name: 'containers', type: 'message', repeated: true, schema: CONTAINER },
      3: { name: 'restartPolicy', type: 'string' },
      4: { name: 'terminationGracePeriodSeconds', type: 'int', pointer: true },
      6: { name: 'dnsPolicy', type: 'string' },
      7: { name: 'nodeSelector', type: 'map' },
      8: { name: 'serviceAccountName', type: 'string' },
      20: { name: 'initContainers', type: 'message', repeated: true, schema: CONTAINER },
    },
  },
};

function META_FIELD(): Field {
  return { name: 'metadata', type: 'message', schema: OBJECT_META };
}

const JOB_SPEC: Schema = {
  1: { name: 'parallelism', type: 'int', pointer: true },
  2: { name: 'completions', type: 'int', pointer: true },
  3: { name: 'activeDeadlineSeconds', type: 'int', pointer: true },
  4: { name: 'selector', type: 'message', schema: LABEL_SELECTOR },
  5: { name: 'manualSelector', type: 'bool', pointer: true },
  6: { name: 'template', type: 'message', schema: POD_TEMPLATE },
  7: { name: 'backoffLimit', type: 'int', pointer: true },
  8: { name: 'ttlSecondsAfterFinished', type: 'int', pointer: true },
  9: { name: 'completionMode', type: 'string' },
  10: { name: 'suspend', type: 'bool', pointer: true },
};

const POLICY_RULE: Schema = {
  1: { name: 'verbs', type: 'string', repeated: true },
  2: { name: 'apiGroups', type: 'string', repeated: true },
  3: { name: 'resources', type: 'string', repeated: true },
  4: { name: 'resourceNames', type: 'string', repeated: true },
  5: { name: 'nonResourceURLs', type: 'string', repeated: true },
};

const RULES: Field = { name: 'rules', type: 'message', repeated: true, schema: POLICY_RULE };

const SUBJECTS: Field = {
  name: 'subjects',
  type: 'message',
  repeated: true,
  schema: {
    1: { name: 'kind', type: 'string' },
    2: { name: 'apiGroup', type: 'string' },
    3: { name: 'name', type: 'string' },
    4: { name: 'namespace', type: 'string' },
  },
};

/** RoleRef's apiGroup has no `omitempty` in Go: it is written even when empty. */
const ROLE_REF: Field = {
  name: 'roleRef',
  type: 'message',
  schema: {
    1: { name: 'apiGroup', type: 'string', pointer: true },
    2: { name: 'kind', type: 'string' },
    3: { name: 'name', type: 'string' },
  },
};

const INGRESS_BACKEND: Schema = {
  3: {
    name: 'resource',
    type: 'message',
    schema: {
      1: { name: 'apiGroup', type: 'string', pointer: true },
      2: { name: 'kind', type: 'string' },
      3: { name: 'name', type: 'string' },
    },
  },
  4: {
    name: 'service',
    type: 'message',
    schema: {
      1: { name: 'name', type: 'string' },
      2: {
        name: 'port',
        type: 'message',
        schema: { 1: { name: 'name', type: 'string' }, 2: { name: 'number', type: 'int' } },
      },
    },
  },
};

const INGRESS_RULE: Schema = {
  1: { name: 'host', type: 'string' },
  2: {
    name: 'ingressRuleValue',
    type: 'message',
    inline: true,
    schema: {
      1: {
        name: 'http',
        type: 'message',
        schema: {
          1: {
            name: 'paths',
            type: 'message',
            repeated: true,
            schema: {
              1: { name: 'path', type: 'string' },
              2: { name: 'backend', type: 'message', schema: INGRESS_BACKEND },
              3: { name: 'pathType', type: 'string', pointer: true },
            },
          },
        },
      },
    },
  },
};

const KINDS: Record<string, Schema> = {
  'rbac.authorization.k8s.io/v1/Role': { 1: META, 2: RULES },
  'rbac.authorization.k8s.io/v1/ClusterRole': {
    1: META,
    2: RULES,
    3: {
      name: 'aggregationRule',
      type: 'message',
      schema: {
        1: { name: 'clusterRoleSelectors', type: 'message', repeated: true, schema: LABEL_SELECTOR },
      },
    },
  },
  'rbac.authorization.k8s.io/v1/RoleBinding': { 1: META, 2: SUBJECTS, 3: ROLE_REF },
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': { 1: META, 2: SUBJECTS, 3: ROLE_REF },
  'networking.k8s.io/v1/Ingress': {
    1: META,
    2: {
      name: 'spec',
      type: 'message',
      schema: {
        1: { name: 'defaultBackend', type: 'message', schema: INGRESS_BACKEND },
        2: {
          name: 'tls',
          type: 'message',
          repeated: true,
          schema: {
            1: { name: 'hosts', type: 'string', repeated: true },
            2: { name: 'secretName', type: 'string' },
          },
        },
        3: { name: 'rules', type: 'message', repeated: true, schema: INGRESS_RULE },
        4: { name: 'ingressClassName', type: 'string', pointer: true },
      },
    },
  },
  'apps/v1/Deployment': {
    1: META_FIELD(),
    2: {
      name: 'spec',
      type: 'message',
      schema: {
        1: { name: 'replicas', type: 'int', pointer: true },
        2: { name: 'selector', type: 'message', schema: LABEL_SELECTOR },
        3: { name: 'template', type: 'message', schema: POD_TEMPLATE },
        4: { name: 'strategy', type: 'message', schema: { 1: { name: 'type', type: 'string' } } },
        5: { name: 'minReadySeconds', type: 'int' },
        6: { name: 'revisionHistoryLimit', type: 'int', pointer: true },
        7: { name: 'paused', type: 'bool' },
        9: { name: 'progressDeadlineSeconds', type: 'int', pointer: true },
      },
    },
  },
  'batch/v1/Job': { 1: META_FIELD(), 2: { name: 'spec', type: 'message', schema: JOB_SPEC } },
  'batch/v1/CronJob': {
    1: META_FIELD(),
    2: {
      name: 'spec',
      type: 'message',
      schema: {
        1: { name: 'schedule', type: 'string' },
        2: { name: 'startingDeadlineSeconds', type: 'int', pointer: true },
        3: { name: 'concurrencyPolicy', type: 'string' },
        4: { name: 'suspend', type: 'bool', pointer: true },
        5: {
          name: 'jobTemplate',
          type: 'message',
          schema: { 1: META_FIELD(), 2: { name: 'spec', type: 'message', schema: JOB_SPEC } },
        },
        6: { name: 'successfulJobsHistoryLimit', type: 'int', pointer: true },
        7: { name: 'failedJobsHistoryLimit', type: 'int', pointer: true },
        8: { name: 'timeZone', type: 'string', pointer: true },
      },
    },
  },
  'v1/Service': {
    1: META_FIELD(),
    2: {
      name: 'spec',
      type: 'message',
      schema: {
        1: {
          name: 'ports',
          type: 'message',
          repeated: true,
          schema: {
            1: { name: 'name', type: 'string' },
            2: { name: 'protocol', type: 'string' },
            3: { name: 'port', type: 'int' },
            4: { name: 'targetPort', type: 'intOrString' },
            5: { name: 'nodePort', type: 'int' },
          },
        },
        2: { name: 'selector', type: 'map' },
        3: { name: 'clusterIP', type: 'string' },
        4: { name: 'type', type: 'string' },
        5: { name: 'externalIPs', type: 'string', repeated: true },
        7: { name: 'sessionAffinity', type: 'string' },
        11: { name: 'externalName', type: 'string' },
      },
    },
  },
  'v1/ResourceQuota': {
    1: META,
    2: {
      name: 'spec',
      type: 'message',
      schema: {
        1: { name: 'hard', type: 'mapQuantity' },
        2: { name: 'scopes', type: 'string', repeated: true },
        3: {
          name: 'scopeSelector',
          type: 'message',
          schema: {
            1: {
              name: 'matchExpressions',
              type: 'message',
              repeated: true,
              schema: {
                1: { name: 'scopeName', type: 'string' },
                2: { name: 'operator', type: 'string' },
                3: { name: 'values', type: 'string', repeated: true },
              },
            },
          },
        },
      },
    },
  },
  'scheduling.k8s.io/v1/PriorityClass': {
    1: META,
    2: { name: 'value', type: 'int' },
    3: { name: 'globalDefault', type: 'bool' },
    4: { name: 'description', type: 'string' },
    5: { name: 'preemptionPolicy', type: 'string', pointer: true },
  },
  'v1/Namespace': {
    1: META,
    2: {
      name: 'spec',
      type: 'message',
      schema: { 1: { name: 'finalizers', type: 'string', repeated: true } },
    },
  },
  'v1/ConfigMap': {
    1: META,
    2: { name: 'data', type: 'map' },
    3: { name: 'binaryData', type: 'mapBytes' },
    4: { name: 'immutable', type: 'bool', pointer: true },
  },
  'v1/Secret': {
    1: META,
    2: { name: 'data', type: 'mapBytes' },
    3: { name: 'type', type: 'string' },
    4: { name: 'stringData', type: 'map' },
    5: { name: 'immutable', type: 'bool', pointer: true },
  },
  'v1/ServiceAccount': {
    1: META,
    2: { name: 'secrets', type: 'message', repeated: true, schema: OBJECT_REFERENCE },
    3: { name: 'imagePullSecrets', type: 'message', repeated: true, schema: LOCAL_OBJECT_REFERENCE },
    4: { name: 'automountServiceAccountToken', type: 'bool', pointer: true },
  },
  'authorization.k8s.io/v1/SelfSubjectAccessReview': {
    1: META,
    2: {
      name: 'spec',
      type: 'message',
      schema: {
        1: {
          name: 'resourceAttributes',
          type: 'message',
          schema: {
            1: { name: 'namespace', type: 'string' },
            2: { name: 'verb', type: 'string' },
            3: { name: 'group', type: 'string' },
            4: { name: 'version', type: 'string' },
            5: { name: 'resource', type: 'string' },
            6: { name: 'subresource', type: 'string' },
            7: { name: 'name', type: 'string' },
          },
        },
        2: {
          name: 'nonResourceAttributes',
          type: 'message',
          schema: { 1: { name: 'path', type: 'string' }, 2: { name: 'verb', type: 'string' } },
        },
      },
    },
  },
  'authentication.k8s.io/v1/SelfSubjectReview': { 1: META },
  'authentication.k8s.io/v1/TokenReview': {
    1: META,
    2: {
      name: 'spec',
      type: 'message',
      schema: {
        1: { name: 'token', type: 'string' },
        2: { name: 'audiences', type: 'string', repeated: true },
      },
    },
  },
  'authentication.k8s.io/v1/TokenRequest': {
    1: META,
    2: {
      name: 'spec',
      type: 'message',
      schema: {
        1: { name: 'audiences', type: 'string', repeated: true },
        3: {
          name: 'boundObjectRef',
          type: 'message',
          schema: {
            1: { name: 'kind', type: 'string' },
            2: { name: 'apiVersion', type: 'string' },
            3: { name: 'name', type: 'string' },
            4: { name: 'uid', type: 'string' },
          },
        },
        4: { name: 'expirationSeconds', type: 'int', pointer: true },
      },
    },
  },
  'authorization.k8s.io/v1/SelfSubjectRulesReview': {
    1: META,
    2: { name: 'spec', type: 'message', schema: { 1: { name: 'namespace', type: 'string' } } },
  },
};

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw bad('truncated varint');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw bad('varint too long');
    }
  }

  bytes(): Buffer {
    const len = Number(this.varint());
    if (len < 0 || this.pos + len > this.buf.length) throw bad('truncated field');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw bad(`unsupported wire type ${wire}`);
    if (this.pos > this.buf.length) throw bad('truncated field');
  }
}

function bad(why: string): ApiError {
  return new ApiError(400, 'BadRequest', `the protobuf body could not be decoded: ${why}`);
}

/** A Quantity message's string (its field 1). */
function quantityString(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function decodeMapEntry(buf: Buffer, valueType: FieldType): [string, string] {
  const r = new Reader(buf);
  let key = '';
  let value = '';
  while (!r.done) {
    const tag = Number(r.varint());
    const field = tag >> 3;
    const wire = tag & 7;
    if (wire !== 2) {
      r.skip(wire);
      continue;
    }
    const b = r.bytes();
    if (field === 1) key = b.toString('utf8');
    else if (field === 2)
      value =
        valueType === 'mapBytes'
          ? b.toString('base64')
          : valueType === 'mapQuantity'
            ? quantityString(decodeMessage(b, { 1: { name: 'string', type: 'string' } }).string)
            : b.toString('utf8');
  }
  return [key, value];
}

function decodeMessage(buf: Buffer, schema: Schema): JsonObject {
  const r = new Reader(buf);
  const out: JsonObject = {};
  while (!r.done) {
    const tag = Number(r.varint());
    const f = schema[tag >> 3];
    const wire = tag & 7;
    if (!f) {
      r.skip(wire);
      continue;
    }
    let value: unknown;
    if (f.type === 'bool' || f.type === 'int') {
      if (wire !== 0) throw bad(`field ${f.name} has the wrong wire type`);
      const n = r.varint();
      value = f.type === 'bool' ? n !== 0n : Number(BigInt.asIntN(64, n));
    } else {
      if (wire !== 2) throw bad(`field ${f.name} has the wrong wire type`);
      const b = r.bytes();
      if (f.type === 'string') value = b.toString('utf8');
      else if (f.type === 'bytes') value = b.toString('base64');
      else if (f.type === 'message') value = decodeMessage(b, f.schema ?? {});
      else if (f.type === 'intOrString') {
        const ios = decodeMessage(b, {
          1: { name: 'type', type: 'int' },
          2: { name: 'intVal', type: 'int' },
          3: { name: 'strVal', type: 'string' },
        });
        value = ios.type === 1 ? (ios.strVal ?? '') : (ios.intVal ?? 0);
      } else {
        const [k, v] = decodeMapEntry(b, f.type);
        const m = (out[f.name] as Record<string, string> | undefined) ?? {};
        m[k] = v;
        out[f.name] = m;
        continue;
      }
    }
    if (f.inline) {
      Object.assign(out, value as JsonObject);
      continue;
    }
    if (!f.pointer && !f.repeated && (value === '' || value === 0 || value === false)) continue;
    if (f.repeated) {
      const arr = (out[f.name] as unknown[] | undefined) ?? [];
      arr.push(value);
      out[f.name] = arr;
    } else out[f.name] = value;
  }
  return out;
}

/** Decodes a protobuf request body into the JSON form of the object. */
export function decodeProtobuf(buf: Buffer): JsonObject {
  if (buf.length < MAGIC.length || !buf.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw bad('missing the k8s protobuf envelope');
  }
  const unknown = decodeMessage(buf.subarray(MAGIC.length), {
    1: {
      name: 'typeMeta',
      type: 'message',
      schema: { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'kind', type: 'string' } },
    },
    2: { name: 'raw', type: 'bytes' },
  });
  const typeMeta = (unknown.typeMeta as { apiVersion?: string; kind?: string } | undefined) ?? {};
  const apiVersion = typeMeta.apiVersion ?? '';
  const kind = typeMeta.kind ?? '';
  const schema = KINDS[`${apiVersion}/${kind}`];
  if (!schema) {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `protobuf bodies are accepted for Namespace, ConfigMap, Secret, ServiceAccount, Service, Deployment, Job, CronJob, Ingress, Role, ClusterRole, RoleBinding, ClusterRoleBinding, PriorityClass, ResourceQuota, TokenRequest, TokenReview and access reviews only, not ${kind || 'this kind'} (${apiVersion}); send application/json or application/yaml`,
    );
  }
  const raw = Buffer.from(typeof unknown.raw === 'string' ? unknown.raw : '', 'base64');
  const obj = decodeMessage(raw, schema);
  return { apiVersion, kind, ...obj };
}
