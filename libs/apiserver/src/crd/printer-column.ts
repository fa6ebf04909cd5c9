/**
 * Printer columns of `kubectl get` tables.
 */
import type { JsonObject } from '../types.js';

/** Column types a Table may declare. */
export type PrinterColumnType = 'integer' | 'number' | 'string' | 'boolean' | 'date';

/** One column of a Table (a CRD's `additionalPrinterColumns` entry, or a built-in kind's column). */
export interface PrinterColumn {
  /** The column header, e.g. `Replicas`. */
  name: string;
  /** The OpenAPI type of the cells; `date` cells are shown as an age (`5m`). */
  type: PrinterColumnType;
  /** The JSONPath of the value (`.spec.replicas`); ignored when {@link PrinterColumn.value} is set. */
  jsonPath: string;
  /** Column description shown by `kubectl explain`-like tools. Defaults to none. */
  description?: string;
  /** 0 for the default view, higher for `-o wide` only. */
  priority: number;
  /** An OpenAPI format hint (`int32`, `date-time`, ...). Defaults to none. */
  format?: string;
  /**
   * Computes the cell instead of the JSONPath (built-in kinds such as a Pod's READY `1/2`). Not part of
   * the Table's column definition. Defaults to reading {@link PrinterColumn.jsonPath}.
   */
  value?: (obj: JsonObject) => unknown;
}

/** The column a CRD version gets when it declares none: the age of the object. */
export const AGE_COLUMN: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  priority: 0,
};
