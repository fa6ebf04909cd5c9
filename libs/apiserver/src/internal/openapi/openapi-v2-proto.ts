import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type { JsonObject } from '../../types.js';
import { isObject } from '../common/json.js';

/**
 * Encodes a Swagger 2.0 document as gnostic's `openapi.v2.Document` protobuf message, the form
 * kube-apiserver serves for `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`
 * (the only form client-go's `OpenAPISchema()` asks for, and so the one kubectl's client-side
 * validation reads). The wire encoding is @bufbuild/protobuf's; the field numbers are those of
 * gnostic's `openapiv2/OpenAPIv2.proto`. Vendor extensions and `default`/`enum`/`example` values
 * go in `Any.yaml` as JSON text (valid YAML), which is how kube-openapi reads them back.
 */

/**
 * The media type clients ask for the protobuf OpenAPI v2 document by. Its `@` is no token
 * character, so the answer is labelled {@link OPENAPI_V2_PROTOBUF_RETURNED}, as kube-openapi's
 * handler does (Go's `mime.ParseMediaType` refuses this one).
 */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

/** The Content-Type of a protobuf OpenAPI v2 answer (also accepted in `Accept`). */
export const OPENAPI_V2_PROTOBUF_RETURNED = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

type Body = (w: BinaryWriter) => void;

function message(w: BinaryWriter, field: number, body: Body): void {
  w.tag(field, WireType.LengthDelimited).fork();
  body(w);
  w.join();
}

function string(w: BinaryWriter, field: number, v: unknown): void {
  if (typeof v === 'string' && v !== '') w.tag(field, WireType.LengthDelimited).string(v);
}

function strings(w: BinaryWriter, field: number, v: unknown): void {
  if (Array.isArray(v))
    for (const s of v) if (typeof s === 'string') w.tag(field, WireType.LengthDelimited).string(s);
}

function bool(w: BinaryWriter, field: number, v: unknown): void {
  if (v === true) w.tag(field, WireType.Varint).bool(true);
}

function double(w: BinaryWriter, field: number, v: unknown): void {
  if (typeof v === 'number' && v !== 0) w.tag(field, WireType.Bit64).double(v);
}

function int64(w: BinaryWriter, field: number, v: unknown): void {
  if (typeof v === 'number' && Number.isInteger(v) && v !== 0) w.tag(field, WireType.Varint).int64(v);
}

/** `openapi.v2.Any`: the value's text in `yaml` (field 2). */
function any(w: BinaryWriter, field: number, v: unknown): void {
  message(w, field, (m) => string(m, 2, JSON.stringify(v)));
}

/** `repeated NamedAny vendor_extension`: every `x-` key. */
function extensions(w: BinaryWriter, field: number, o: JsonObject): void {
  for (const [k, v] of Object.entries(o)) {
    if (!k.startsWith('x-') || v === undefined) continue;
    message(w, field, (m) => {
      string(m, 1, k);
      any(m, 2, v);
    });
  }
}

function schema(w: BinaryWriter, s: JsonObject): void {
  string(w, 1, s.$ref);
  string(w, 2, s.format);
  string(w, 3, s.title);
  string(w, 4, s.description);
  if (s.default !== undefined) any(w, 5, s.default);
  double(w, 6, s.multipleOf);
  double(w, 7, s.maximum);
  bool(w, 8, s.exclusiveMaximum);
  double(w, 9, s.minimum);
  bool(w, 10, s.exclusiveMinimum);
  int64(w, 11, s.maxLength);
  int64(w, 12, s.minLength);
  string(w, 13, s.pattern);
  int64(w, 14, s.maxItems);
  int64(w, 15, s.minItems);
  bool(w, 16, s.uniqueItems);
  int64(w, 17, s.maxProperties);
  int64(w, 18, s.minProperties);
  strings(w, 19, s.required);
  if (Array.isArray(s.enum)) for (const e of s.enum) any(w, 20, e);
  const ap = s.additionalProperties;
  if (typeof ap === 'boolean') message(w, 21, (m) => m.tag(2, WireType.Varint).bool(ap));
  else if (isObject(ap)) message(w, 21, (m) => message(m, 1, (x) => schema(x, ap)));
  if (typeof s.type === 'string') message(w, 22, (m) => string(m, 1, s.type));
  else if (Array.isArray(s.type)) message(w, 22, (m) => strings(m, 1, s.type));
  const items = s.items;
  if (isObject(items)) message(w, 23, (m) => message(m, 1, (x) => schema(x, items)));
  else if (Array.isArray(items))
    message(w, 23, (m) => {
      for (const i of items) if (isObject(i)) message(m, 1, (x) => schema(x, i));
    });
  if (Array.isArray(s.allOf)) for (const a of s.allOf) if (isObject(a)) message(w, 24, (m) => schema(m, a));
  const props = s.properties;
  if (isObject(props)) message(w, 25, (m) => namedSchemas(m, props));
  string(w, 26, s.discriminator);
  bool(w, 27, s.readOnly);
  if (s.example !== undefined) any(w, 30, s.example);
  extensions(w, 31, s);
}

/** `repeated NamedSchema additional_properties = 1` (Definitions, Properties). */
function namedSchemas(w: BinaryWriter, o: JsonObject): void {
  for (const [name, s] of Object.entries(o)) {
    if (!isObject(s)) continue;
    message(w, 1, (m) => {
      string(m, 1, name);
      message(m, 2, (x) => schema(x, s));
    });
  }
}

/** `PrimitivesItems` (the items of a non-body parameter). */
function primitivesItems(w: BinaryWriter, p: JsonObject): void {
  string(w, 1, p.type);
  string(w, 2, p.format);
  const items = p.items;
  if (isObject(items)) message(w, 3, (m) => primitivesItems(m, items));
  string(w, 4, p.collectionFormat);
  if (p.default !== undefined) any(w, 5, p.default);
  bool(w, 15, p.uniqueItems);
  if (Array.isArray(p.enum)) for (const e of p.enum) any(w, 16, e);
  extensions(w, 18, p);
}

/**
 * A query, form, header or path parameter: their messages share one layout, except that query
 * and form parameters have `allow_empty_value` at 5 and every later field one number up.
 */
function nonBodyParameter(w: BinaryWriter, p: JsonObject): void {
  const o = p.in === 'query' || p.in === 'formData' ? 1 : 0;
  bool(w, 1, p.required);
  string(w, 2, p.in);
  string(w, 3, p.description);
  string(w, 4, p.name);
  if (o === 1) bool(w, 5, p.allowEmptyValue);
  string(w, 5 + o, p.type);
  string(w, 6 + o, p.format);
  const items = p.items;
  if (isObject(items)) message(w, 7 + o, (m) => primitivesItems(m, items));
  string(w, 8 + o, p.collectionFormat);
  if (p.default !== undefined) any(w, 9 + o, p.default);
  double(w, 10 + o, p.maximum);
  bool(w, 11 + o, p.exclusiveMaximum);
  double(w, 12 + o, p.minimum);
  bool(w, 13 + o, p.exclusiveMinimum);
  int64(w, 14 + o, p.maxLength);
  int64(w, 15 + o, p.minLength);
  string(w, 16 + o, p.pattern);
  int64(w, 17 + o, p.maxItems);
  int64(w, 18 + o, p.minItems);
  bool(w, 19 + o, p.uniqueItems);
  if (Array.isArray(p.enum)) for (const e of p.enum) any(w, 20 + o, e);
  double(w, 21 + o, p.multipleOf);
  extensions(w, 22 + o, p);
}

const NON_BODY_FIELD: Record<string, number> = { header: 1, formData: 2, query: 3, path: 4 };

/** `ParametersItem`: a parameter or a reference to one. */
function parametersItem(w: BinaryWriter, p: JsonObject): void {
  if (typeof p.$ref === 'string') {
    message(w, 2, (m) => {
      string(m, 1, p.$ref);
      string(m, 2, p.description);
    });
    return;
  }
  message(w, 1, (param) => {
    if (p.in === 'body') {
      message(param, 1, (m) => {
        string(m, 1, p.description);
        string(m, 2, p.name);
        string(m, 3, p.in);
        bool(m, 4, p.required);
        const s = p.schema;
        if (isObject(s)) message(m, 5, (x) => schema(x, s));
        extensions(m, 6, p);
      });
      return;
    }
    const field = NON_BODY_FIELD[typeof p.in === 'string' ? p.in : ''];
    if (field === undefined) return;
    message(param, 2, (m) => message(m, field, (x) => nonBodyParameter(x, p)));
  });
}

function parameters(w: BinaryWriter, field: number, v: unknown): void {
  if (Array.isArray(v)) for (const p of v) if (isObject(p)) message(w, field, (m) => parametersItem(m, p));
}

function responses(w: BinaryWriter, r: JsonObject): void {
  for (const [code, value] of Object.entries(r)) {
    if (code.startsWith('x-') || !isObject(value)) continue;
    message(w, 1, (named) => {
      string(named, 1, code);
      message(named, 2, (rv) => {
        if (typeof value.$ref === 'string') {
          message(rv, 2, (m) => string(m, 1, value.$ref));
          return;
        }
        message(rv, 1, (m) => {
          string(m, 1, value.description);
          const s = value.schema;
          if (isObject(s)) message(m, 2, (item) => message(item, 1, (x) => schema(x, s)));
          extensions(m, 5, value);
        });
      });
    });
  }
  extensions(w, 2, r);
}

function operation(w: BinaryWriter, op: JsonObject): void {
  strings(w, 1, op.tags);
  string(w, 2, op.summary);
  string(w, 3, op.description);
  string(w, 5, op.operationId);
  strings(w, 6, op.produces);
  strings(w, 7, op.consumes);
  parameters(w, 8, op.parameters);
  const r = op.responses;
  if (isObject(r)) message(w, 9, (m) => responses(m, r));
  strings(w, 10, op.schemes);
  bool(w, 11, op.deprecated);
  extensions(w, 13, op);
}

const OPERATION_FIELD: Record<string, number> = {
  get: 2,
  put: 3,
  post: 4,
  delete: 5,
  options: 6,
  head: 7,
  patch: 8,
};

function pathItem(w: BinaryWriter, item: JsonObject): void {
  string(w, 1, item.$ref);
  for (const [method, field] of Object.entries(OPERATION_FIELD)) {
    const op = item[method];
    if (isObject(op)) message(w, field, (m) => operation(m, op));
  }
  parameters(w, 9, item.parameters);
  extensions(w, 10, item);
}

/** Encodes a Swagger 2.0 document (JSON form) as the `openapi.v2.Document` protobuf message. */
export function encodeOpenApiV2(doc: JsonObject): Uint8Array {
  const w = new BinaryWriter();
  string(w, 1, doc.swagger);
  const info = doc.info;
  if (isObject(info))
    message(w, 2, (m) => {
      string(m, 1, info.title);
      string(m, 2, info.version);
      string(m, 3, info.description);
      extensions(m, 7, info);
    });
  string(w, 3, doc.host);
  string(w, 4, doc.basePath);
  strings(w, 5, doc.schemes);
  strings(w, 6, doc.consumes);
  strings(w, 7, doc.produces);
  const paths = doc.paths;
  if (isObject(paths))
    message(w, 8, (m) => {
      extensions(m, 1, paths);
      for (const [p, item] of Object.entries(paths)) {
        if (p.startsWith('x-') || !isObject(item)) continue;
        message(m, 2, (named) => {
          string(named, 1, p);
          message(named, 2, (x) => pathItem(x, item));
        });
      }
    });
  const definitions = doc.definitions;
  if (isObject(definitions)) message(w, 9, (m) => namedSchemas(m, definitions));
  extensions(w, 16, doc);
  return w.finish();
}
