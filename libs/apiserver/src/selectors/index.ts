/**
 * Label and field selectors with Kubernetes' syntax, semantics and error messages.
 *
 * @packageDocumentation
 */
export { SelectorError } from './selector-error.js';
export type { SelectorErrorCode } from './selector-error.js';
export { parseLabelSelector } from './label-parser.js';
export {
  EVERYTHING,
  NOTHING,
  matchesLabels,
  matchesRequirement,
  newRequirement,
  selectorToString,
  selectsEverything,
} from './label-selector.js';
export type { LabelOperator, LabelRequirement, LabelSelector } from './label-selector.js';
export { labelSelectorFromObject } from './label-selector-object.js';
export type { LabelSelectorObject, LabelSelectorRequirementObject } from './label-selector-object.js';
export { labelKeyErrors, labelValueErrors } from './label-validation.js';
export {
  escapeFieldValue,
  fieldSelectorToString,
  matchesFields,
  parseFieldSelector,
  unescapeFieldValue,
} from './field-selector.js';
export type { FieldRequirement } from './field-selector.js';
