import type { JsonObject } from '../../types.js';
import { schemaResolver } from './builtin-schemas.js';

/**
 * A value of a built-in kind's object whose JSON type its Go field cannot take (`replicas: "2"`,
 * `env: [{ value: 8080 }]`, `data: { k: true }`): kube-apiserver decodes a built-in object into its
 * Go struct first, and encoding/json (sigs.k8s.io/json) refuses such a value before any validation.
 */
export interface BuiltinTypeMismatch {
  /** What the JSON holds, as encoding/json's UnmarshalTypeError names it: `string`, `bool`, `number`, `number 1.5`, `object`, `array`. */
  readonly value: string;
  /** The Go struct holding the field (`DeploymentSpec`). */
  readonly struct: string;
  /** The JSON names of the struct fields from the root, as encoding/json joins them (`spec.replicas`: no list indices or map keys). */
  readonly field: string;
  /** The Go type of the field (`int32`, `string`, `[]v1.Container`, `map[string]string`). */
  readonly type: string;
  /** The path with list indices and map keys (`spec.template.spec.containers[0].env[0].value`). */
  readonly path: string;
  /** The scalar kind structured-merge-diff's validation expects (apply); undefined for a list or map shape. */
  readonly scalar?: 'numeric' | 'string' | 'boolean' | 'any scalar';
  /** What structured-merge-diff would print for the value (`string`, `bool`, `map[string]interface {}`). */
  readonly goTypeOfValue: string;
  /** The shape structured-merge-diff expects instead of a scalar: `list` or `map`. */
  readonly shape?: 'list' | 'map';
  /** The offending value itself. */
  readonly actual: unknown;
  /**
   * The Go type decodes itself (json.Unmarshaler): an int-or-string (its int32 half) or a time (a
   * string); the unstructured converter then hands it the value as JSON instead of converting it.
   */
  readonly unmarshaler?: 'int32' | 'string';
}

/**
 * Quantity fields (resource.Quantity and ResourceList) by JSON name, from k8s.io/api's types: a
 * Quantity decodes from a JSON string or number (Quantity.UnmarshalJSON), and its text is checked by
 * the quantity validation, so the type walk leaves them alone. `value` is a Quantity only in the
 * autoscaling metric types (an EnvVar's `value` is a string).
 */
const QUANTITY_FIELDS = new Set([
  'allocatable',
  'allocatedResources',
  'averageValue',
  'capacity',
  'default',
  'defaultRequest',
  'divisor',
  'hard',
  'limits',
  'max',
  'maxLimitRequestRatio',
  'maximumVolumeSize',
  'min',
  'overhead',
  'perContainer',
  'perPod',
  'podFixed',
  'quantity',
  'requests',
  'sizeLimit',
  'tolerance',
  'used',
]);
const METRIC_VALUE_STRUCTS = new Set(['MetricTarget', 'MetricValueStatus']);

const INT32 = { min: -2147483648, max: 2147483647 };

/** The Go type of a schema definition name (`io.k8s.api.apps.v1.DeploymentSpec` is `v1.DeploymentSpec`). */
function goStructType(ref: string): { pkg: string; name: string } {
  const parts = ref.replace('#/components/schemas/', '').split('.');
  return { pkg: parts[parts.length - 2] ?? '', name: parts[parts.length - 1] ?? ref };
}

function refOf(s: JsonObject): string | undefined {
  if (typeof s.$ref === 'string') return s.$ref;
  if (Array.isArray(s.allOf) && s.allOf.length === 1) {
    const inner = s.allOf[0] as JsonObject;
    if (typeof inner.$ref === 'string') return inner.$ref;
  }
  return undefined;
}

function jsonKind(v: unknown): 'string' | 'bool' | 'number' | 'object' | 'array' {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'number';
  return Array.isArray(v) ? 'array' : 'object';
}

/** `%T` of the value as structured-merge-diff's unstructured value holds it. */
function goUnstructuredType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

/**
 * The first value (in the object's key order, as encoding/json meets them in the text) of `obj`
 * whose JSON type its Go field cannot take, walking the kind's schema from `root`; undefined when
 * every value fits. Fields the schema does not declare are not looked at (unknown fields are reported
 * apart), nor are untyped (`x-kubernetes-preserve-unknown-fields`) and Quantity fields.
 */
export function builtinTypeMismatch(
  obj: unknown,
  components: Record<string, JsonObject>,
  root: string,
): BuiltinTypeMismatch | undefined {
  // the resolver the unknown-field and omitempty walks share (memoised per components map); a
  // struct's name is its field's `$ref` (client-node's schemas never chain references)
  const resolve = schemaResolver(components);
  /** The Go type `schema` decodes into, for the message. */
  const goType = (s: JsonObject, depth = 0): string => {
    const ref = refOf(s);
    if (ref !== undefined) {
      const t = goStructType(ref);
      return `${t.pkg}.${t.name}`;
    }
    if (depth > 8) return 'interface {}';
    const schema = resolve(s);
    if (schema['x-kubernetes-int-or-string'] === true) return 'intstr.IntOrString';
    switch (schema.type) {
      case 'string':
        return schema.format === 'byte' ? '[]uint8' : 'string';
      case 'integer':
        return schema.format === 'int64' ? 'int64' : 'int32';
      case 'number':
        return 'float64';
      case 'boolean':
        return 'bool';
      case 'array':
        return `[]${goType((schema.items as JsonObject | undefined) ?? {}, depth + 1)}`;
      case 'object':
        if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
          return `map[string]${goType(schema.additionalProperties as JsonObject, depth + 1)}`;
        return 'map[string]interface {}';
      default:
        return 'interface {}';
    }
  };

  const fieldStack: string[] = [];
  const pathSegs: string[] = [];
  const pathOf = (): string =>
    pathSegs.reduce((p, s) => (s.startsWith('[') ? `${p}${s}` : p ? `${p}.${s}` : s), '');
  let found: BuiltinTypeMismatch | undefined;
  const mismatch = (
    v: unknown,
    value: string,
    struct: string,
    type: string,
    smd: Pick<BuiltinTypeMismatch, 'scalar' | 'shape' | 'unmarshaler'>,
  ): void => {
    found = {
      value,
      struct,
      field: fieldStack.join('.'),
      type,
      path: pathOf(),
      goTypeOfValue: goUnstructuredType(v),
      actual: v,
      ...smd,
    };
  };

  /** Checks `v` against the field schema `s` of the struct named `struct`. */
  const check = (v: unknown, s: JsonObject, struct: string): void => {
    if (found || v === null || v === undefined || pathSegs.length > 60) return;
    const schema = resolve(s);
    const ref = refOf(s);
    if (ref !== undefined) {
      const t = goStructType(ref);
      if (typeof v !== 'object' || Array.isArray(v)) {
        mismatch(v, jsonKind(v), struct, `${t.pkg}.${t.name}`, { shape: 'map' });
        return;
      }
      walkStruct(v as Record<string, unknown>, schema, t.name);
      return;
    }
    if (schema['x-kubernetes-preserve-unknown-fields'] === true) return;
    if (schema['x-kubernetes-int-or-string'] === true) {
      // IntOrString.UnmarshalJSON: a JSON string, else an int32
      if (typeof v === 'string') return;
      if (typeof v === 'number') {
        if (Number.isInteger(v) && v >= INT32.min && v <= INT32.max) return;
        mismatch(v, `number ${String(v)}`, struct, 'int32', { unmarshaler: 'int32' });
        return;
      }
      mismatch(v, jsonKind(v), struct, 'int32', { scalar: 'any scalar', unmarshaler: 'int32' });
      return;
    }
    switch (schema.type) {
      case 'string':
        if (typeof v !== 'string')
          mismatch(v, jsonKind(v), struct, goType(schema), {
            scalar: 'string',
            ...(schema.format === 'date-time' ? { unmarshaler: 'string' as const } : {}),
          });
        return;
      case 'boolean':
        if (typeof v !== 'boolean') mismatch(v, jsonKind(v), struct, 'bool', { scalar: 'boolean' });
        return;
      case 'number':
        if (typeof v !== 'number') mismatch(v, jsonKind(v), struct, 'float64', { scalar: 'numeric' });
        return;
      case 'integer': {
        const type = goType(schema);
        if (typeof v !== 'number') mismatch(v, jsonKind(v), struct, type, { scalar: 'numeric' });
        else if (!Number.isInteger(v) || (type === 'int32' && (v < INT32.min || v > INT32.max)))
          mismatch(v, `number ${String(v)}`, struct, type, {});
        return;
      }
      case 'array': {
        if (!Array.isArray(v)) {
          mismatch(v, jsonKind(v), struct, goType(schema), { shape: 'list' });
          return;
        }
        const items = (schema.items as JsonObject | undefined) ?? {};
        for (let i = 0; i < v.length && !found; i++) {
          pathSegs.push(`[${i}]`);
          check(v[i], items, struct);
          pathSegs.pop();
        }
        return;
      }
      case 'object': {
        const ap = schema.additionalProperties;
        if (!ap || typeof ap !== 'object') return;
        if (typeof v !== 'object' || Array.isArray(v)) {
          mismatch(v, jsonKind(v), struct, goType(schema), { shape: 'map' });
          return;
        }
        const map = v as Record<string, unknown>;
        for (const k in map) {
          if (!Object.hasOwn(map, k)) continue;
          pathSegs.push(`[${k}]`);
          check(map[k], ap as JsonObject, struct);
          pathSegs.pop();
          if (found) return;
        }
        return;
      }
      default:
        return;
    }
  };

  const walkStruct = (obj: Record<string, unknown>, schema: JsonObject, struct: string): void => {
    const props = schema.properties as Record<string, JsonObject> | undefined;
    if (!props) return;
    for (const k in obj) {
      if (!Object.hasOwn(obj, k)) continue;
      const p = props[k];
      if (!p) continue;
      if (QUANTITY_FIELDS.has(k) || (k === 'value' && METRIC_VALUE_STRUCTS.has(struct))) continue;
      fieldStack.push(k);
      pathSegs.push(k);
      check(obj[k], p, struct);
      pathSegs.pop();
      fieldStack.pop();
      if (found) return;
    }
  };

  const r = components[root];
  if (r && obj !== null && typeof obj === 'object' && !Array.isArray(obj))
    walkStruct(obj as Record<string, unknown>, r, goStructType(root).name);
  return found;
}

/** encoding/json's UnmarshalTypeError text for the mismatch (`json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`). */
export function jsonDecodeMessage(m: BuiltinTypeMismatch): string {
  return `json: cannot unmarshal ${m.value} into Go struct field ${m.struct}.${m.field} of type ${m.type}`;
}

/** `%#v` of a scalar as Go prints it inside structured-merge-diff's unstructured value. */
function goSharp(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return Array.isArray(v) ? '[]interface {}{...}' : 'map[string]interface {}{...}';
}

/**
 * structured-merge-diff's validation text for the mismatch of an applied configuration
 * (typed/validate.go validateScalar, typed/helpers.go listValue and mapValue), after its path
 * (`.spec.replicas: expected numeric (int or float), got string`); undefined when its schema would
 * take the value (a number with a fraction for an integer: structured-merge-diff's numeric).
 */
export function applyTypeMessage(m: BuiltinTypeMismatch): string | undefined {
  // structured-merge-diff's int-or-string is an untyped scalar: any number passes its validation
  if (m.unmarshaler === 'int32' && typeof m.actual === 'number') return undefined;
  const unstructured = `&value.valueUnstructured{Value:${goSharp(m.actual)}}`;
  let text: string;
  if (m.shape === 'list') text = `expected list, got ${unstructured}`;
  else if (m.shape === 'map') text = `expected map, got ${unstructured}`;
  else if (m.scalar === 'numeric') text = `expected numeric (int or float), got ${m.goTypeOfValue}`;
  else if (m.scalar === 'string') text = `expected string, got ${unstructured}`;
  else if (m.scalar === 'boolean') text = `expected boolean, got ${unstructured}`;
  else if (m.scalar === 'any scalar') text = `expected any scalar, got ${unstructured}`;
  else return undefined;
  return `.${m.path}: ${text}`;
}

/** Go's reflect Kind of a value as the unstructured converter holds it (json numbers as int64 or float64). */
function goKind(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return Array.isArray(v) ? 'slice' : 'map';
}

/**
 * The unstructured converter's error for the mismatch, as kube-apiserver's strategic merge patch
 * reports it (apimachinery runtime/converter.go fromUnstructured: `unrecognized type: int32`,
 * `cannot convert int64 to string`, `cannot restore slice from string`); undefined where the
 * converter takes the value (an int32 out of range is converted, not refused).
 */
export function strategicPatchMessage(m: BuiltinTypeMismatch): string | undefined {
  const v = m.actual;
  const t = m.type;
  // a type that decodes itself is handed the value as JSON: encoding/json's error, with no field
  if (m.unmarshaler !== undefined)
    return `json: cannot unmarshal ${m.value} into Go value of type ${m.unmarshaler}`;
  if (t === 'int32' && m.value.startsWith('number ') && Number.isInteger(v)) return undefined;
  if (t.startsWith('[]')) return `cannot restore slice from ${goKind(v)}`;
  if (t.startsWith('map[')) return `cannot restore map from ${goKind(v)}`;
  if (/^v\d/.test(t)) return `cannot restore struct from: ${goKind(v)}`;
  if (typeof v === 'number' && ['string', 'int32', 'int64'].includes(t)) {
    // an integer converts to a string in Go (a rune), and the converter refuses that conversion by name
    if (Number.isInteger(v) && t === 'string') return 'cannot convert int64 to string';
    if (!Number.isInteger(v) && t !== 'string') return `cannot convert float64 to ${t}`;
  }
  return `unrecognized type: ${t}`;
}

/** `%+v` of a value decoded from JSON into Go's interface{} (maps with sorted keys: `map[spec:map[replicas:3]]`). */
export function goPlusV(v: unknown, depth = 0): string {
  if (v === null || v === undefined) return '<nil>';
  if (depth > 20) return '...';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map((x) => goPlusV(x, depth + 1)).join(' ')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  return `map[${keys.map((k) => `${k}:${goPlusV(o[k], depth + 1)}`).join(' ')}]`;
}

/** Go's %v of a JSON number as kube's json decoding holds it (an integer as int64, else float64 in %g). */
function goFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return String(n);
  // fmt's %v of a float64 is strconv's 'g' at the shortest precision: exponent form when the
  // exponent is < -4 or >= 6 (fmt.Println(1234567.5) prints 1.2345675e+06)
  const exp = n === 0 ? 0 : Math.floor(Math.log10(Math.abs(n)));
  if (exp < -4 || exp >= 6) {
    const [mant, e] = n.toExponential().split('e');
    const sign = e.startsWith('-') ? '-' : '+';
    const digits = e.replace(/^[+-]/, '').padStart(2, '0');
    return `${mant}e${sign}${digits}`;
  }
  return String(n);
}
