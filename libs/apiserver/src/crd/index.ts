/**
 * CustomResourceDefinitions: validation, structural schemas (pruning, defaulting, validation),
 * printer-column tables and OpenAPI documents.
 */
export { validateCrd, MAX_SELECTABLE_FIELDS } from './validate-crd.js';
export { validateStructuralSchema } from './structural-schema.js';
export { compileCrd } from './compile-crd.js';
export type {
  AdmitMode,
  AdmitOptions,
  CompiledCrd,
  CompiledVersion,
  CrdNames,
  ScaleSubresource,
} from './compile-crd.js';
export { buildPatchSchema } from './patch-schema.js';
export { fieldValue } from './field-value.js';
export { CrdError } from './errors.js';
export type { CrdErrorCode } from './errors.js';
export { CauseReason } from './field-errors.js';
export type { JsonSchemaProps } from './schema-types.js';
export type { PrinterColumn, PrinterColumnType } from './printer-column.js';
export { AGE_COLUMN } from './printer-column.js';
export { crdStatus, checkNameConflicts, findNameConflict } from './crd-status.js';
export type { NameConflict } from './crd-status.js';
export { buildTable } from './table.js';
export type { IncludeObject, TableOptions } from './table.js';
export { builtinColumns } from './builtin-columns.js';
export { JsonPath } from './jsonpath.js';
export { humanDuration } from './human-duration.js';
export { buildOpenApiV3, OPENAPI_INFO_VERSION } from './openapi-v3.js';
export type { OpenApiV3 } from './openapi-v3.js';
export { buildOpenApiV2 } from './openapi-v2.js';
export { definitionName } from './openapi/crd-definitions.js';
export { compareKubeVersions } from './kube-version.js';
export type { SkippedRule } from './internal/cel/rules.js';
