/**
 * Schemas of the apimachinery meta types that custom resource documents refer to
 * (`io.k8s.apimachinery.pkg.apis.meta.v1.*`), so `kubectl explain <crd>.metadata` works.
 * Descriptions are short summaries written for this server.
 */
import type { JsonObject } from '../../types.js';

/** The component name prefix of the meta types. */
export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

const str = (description: string): JsonObject => ({ type: 'string', description });
const strMap = (description: string): JsonObject => ({
  type: 'object',
  additionalProperties: { type: 'string', default: '' },
  description,
});

/** The meta schemas, with references written by `ref(name)` (v2: `#/definitions/x`, v3: `#/components/schemas/x`). */
export function metaSchemas(ref: (name: string) => string, v3: boolean): Record<string, JsonObject> {
  const to = (name: string, description: string, extra: JsonObject = {}): JsonObject =>
    v3 ? { allOf: [{ $ref: ref(name) }], description, ...extra } : { $ref: ref(name), description, ...extra };
  const time = (description: string): JsonObject => to(`${META}.Time`, description);
  return {
    [`${META}.Time`]: {
      type: 'string',
      format: 'date-time',
      description: 'Time is a timestamp in RFC 3339 form, with second precision, serialized in UTC.',
    },
    [`${META}.MicroTime`]: {
      type: 'string',
      format: 'date-time',
      description: 'MicroTime is a timestamp in RFC 3339 form with microsecond precision.',
    },
    [`${META}.FieldsV1`]: {
      type: 'object',
      description:
        'FieldsV1 stores a set of fields as a JSON trie: each key is a field (f:name), a list item by value (v:...) or by key (k:{...}), or "." for the field itself.',
    },
    [`${META}.ObjectMeta`]: {
      type: 'object',
      description:
        'ObjectMeta is metadata that every persisted resource has, including the ones users create.',
      properties: {
        annotations: strMap(
          'Annotations is an unstructured key/value map for arbitrary metadata that tools set; it is not used to select objects.',
        ),
        creationTimestamp: time(
          'CreationTimestamp is when the server created this object. Set by the system; read-only.',
        ),
        deletionGracePeriodSeconds: {
          type: 'integer',
          format: 'int64',
          description: 'Seconds the object may take to terminate gracefully before it is removed. Read-only.',
        },
        deletionTimestamp: time(
          'DeletionTimestamp is when the object will be deleted; set by the server when deletion is requested. Read-only.',
        ),
        finalizers: {
          type: 'array',
          items: { type: 'string', default: '' },
          description:
            'Finalizers must be empty before the object is removed from the registry; each names a controller that still has cleanup to do.',
          'x-kubernetes-list-type': 'set',
          'x-kubernetes-patch-strategy': 'merge',
        },
        generateName: str(
          'GenerateName is a prefix from which the server generates a unique name when Name is not given.',
        ),
        generation: {
          type: 'integer',
          format: 'int64',
          description:
            'A sequence number for the desired state (spec) that the server increments. Read-only.',
        },
        labels: strMap('Labels are key/value pairs used to organize and select objects.'),
        managedFields: {
          type: 'array',
          items: v3
            ? { allOf: [{ $ref: ref(`${META}.ManagedFieldsEntry`) }], default: {} }
            : { $ref: ref(`${META}.ManagedFieldsEntry`) },
          description:
            'ManagedFields records which manager owns which fields (server-side apply). Mostly internal.',
          'x-kubernetes-list-type': 'atomic',
        },
        name: str(
          'Name is unique within a namespace. It is required when creating resources, although the server can generate it from GenerateName. Cannot be updated.',
        ),
        namespace: str(
          'Namespace is the space within which the name must be unique. Empty for cluster-scoped objects. Cannot be updated.',
        ),
        ownerReferences: {
          type: 'array',
          items: v3
            ? { allOf: [{ $ref: ref(`${META}.OwnerReference`) }], default: {} }
            : { $ref: ref(`${META}.OwnerReference`) },
          description:
            'Objects this object depends on. When all owners are deleted, this object is garbage collected. At most one owner may be the managing controller.',
          'x-kubernetes-list-map-keys': ['uid'],
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-patch-merge-key': 'uid',
          'x-kubernetes-patch-strategy': 'merge',
        },
        resourceVersion: str(
          'An opaque value that changes whenever the object changes; clients use it for optimistic concurrency and watches. Read-only.',
        ),
        selfLink: str('Deprecated and not set by the server.'),
        uid: str(
          'UID is the unique identifier of this object in time and space, set by the server. Read-only.',
        ),
      },
    },
    [`${META}.ListMeta`]: {
      type: 'object',
      description: 'ListMeta is the metadata of a list: its resourceVersion and paging state.',
      properties: {
        continue: str('Continue is set when more items are available; pass it back to get the next page.'),
        remainingItemCount: {
          type: 'integer',
          format: 'int64',
          description: 'The number of items after this page, when the server can tell.',
        },
        resourceVersion: str('The resourceVersion the list was read at.'),
        selfLink: str('Deprecated and not set by the server.'),
      },
    },
    [`${META}.ManagedFieldsEntry`]: {
      type: 'object',
      description: 'ManagedFieldsEntry records the fields one manager owns, from one operation.',
      properties: {
        apiVersion: str('The version of the resource the fields are written in.'),
        fieldsType: str('The format of fieldsV1; always "FieldsV1".'),
        fieldsV1: to(`${META}.FieldsV1`, 'The owned fields.'),
        manager: str('The name of the workflow managing these fields.'),
        operation: str('Apply or Update: the kind of operation that last set these fields.'),
        subresource: str(
          'The subresource the fields were written through (e.g. status), empty for the main resource.',
        ),
        time: time('When these fields were last changed by this manager.'),
      },
    },
    [`${META}.OwnerReference`]: {
      type: 'object',
      description: 'OwnerReference identifies an owning object in the same namespace (or cluster-scoped).',
      required: ['apiVersion', 'kind', 'name', 'uid'],
      properties: {
        apiVersion: { ...str('API version of the owner.'), default: '' },
        blockOwnerDeletion: {
          type: 'boolean',
          description:
            'When true and the owner uses foreground deletion, the owner waits for this object to be deleted.',
        },
        controller: { type: 'boolean', description: 'When true, this owner is the managing controller.' },
        kind: { ...str('Kind of the owner.'), default: '' },
        name: { ...str('Name of the owner.'), default: '' },
        uid: { ...str('UID of the owner.'), default: '' },
      },
      'x-kubernetes-map-type': 'atomic',
    },
    [`${META}.Patch`]: {
      type: 'object',
      description:
        'Patch is the body of a PATCH request: a JSON patch, a JSON merge patch or an apply configuration.',
    },
    [`${META}.StatusCause`]: {
      type: 'object',
      description: 'StatusCause is one reason of a failure, with the field it concerns.',
      properties: {
        field: str('The field of the resource that caused the error, e.g. spec.replicas.'),
        message: str('A human-readable description of the cause.'),
        reason: str('A machine-readable reason, e.g. FieldValueInvalid.'),
      },
    },
    [`${META}.StatusDetails`]: {
      type: 'object',
      description: 'StatusDetails names the object a Status is about and lists the causes.',
      properties: {
        causes: {
          type: 'array',
          items: v3
            ? { allOf: [{ $ref: ref(`${META}.StatusCause`) }], default: {} }
            : { $ref: ref(`${META}.StatusCause`) },
          'x-kubernetes-list-type': 'atomic',
          description: 'The causes of the failure.',
        },
        group: str('The group of the resource.'),
        kind: str('The kind (resource) of the object.'),
        name: str('The name of the object.'),
        retryAfterSeconds: {
          type: 'integer',
          format: 'int32',
          description: 'Seconds to wait before retrying.',
        },
        uid: str('The UID of the object.'),
      },
    },
    [`${META}.Status`]: {
      type: 'object',
      description: 'Status is the result of an operation that does not return an object, or of a failure.',
      properties: {
        apiVersion: str(API_VERSION_DESCRIPTION),
        code: { type: 'integer', format: 'int32', description: 'The HTTP status code.' },
        details: to(`${META}.StatusDetails`, 'Extended data about the failure.'),
        kind: str(KIND_DESCRIPTION),
        message: str('A human-readable description.'),
        metadata: to(`${META}.ListMeta`, 'Standard list metadata.', { default: {} }),
        reason: str('A machine-readable reason, e.g. NotFound, Conflict, Invalid.'),
        status: str('Success or Failure.'),
      },
      'x-kubernetes-group-version-kind': [{ group: '', kind: 'Status', version: 'v1' }],
    },
    'io.k8s.api.autoscaling.v1.Scale': {
      type: 'object',
      description: 'Scale is the scale subresource of a resource.',
      properties: {
        apiVersion: str(API_VERSION_DESCRIPTION),
        kind: str(KIND_DESCRIPTION),
        metadata: to(`${META}.ObjectMeta`, "Standard object's metadata.", { default: {} }),
        spec: {
          type: 'object',
          description: 'The desired scale.',
          properties: {
            replicas: { type: 'integer', format: 'int32', description: 'The desired number of instances.' },
          },
        },
        status: {
          type: 'object',
          description: 'The observed scale.',
          required: ['replicas'],
          properties: {
            replicas: { type: 'integer', format: 'int32', description: 'The observed number of instances.' },
            selector: str('The label selector of the instances, in string form.'),
          },
        },
      },
      'x-kubernetes-group-version-kind': [{ group: 'autoscaling', kind: 'Scale', version: 'v1' }],
    },
  };
}

/** Standard descriptions of `apiVersion` and `kind`. */
export const API_VERSION_DESCRIPTION =
  'APIVersion is the versioned schema of this representation of an object. Servers convert recognized schemas to the latest internal value and may reject unrecognized values.';
/** @see API_VERSION_DESCRIPTION */
export const KIND_DESCRIPTION =
  'Kind is a string value for the REST resource this object represents, in CamelCase. Servers may infer it from the endpoint. Cannot be updated.';
