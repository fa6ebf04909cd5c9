/**
 * `create-tosdk`: `npm create tosdk@latest my-operator` lays out a Nest 12 operator project.
 *
 * @packageDocumentation
 */
export { createProject, CreateTosdkError } from './create.js';
export type { CreateProjectOptions } from './create.js';
export { projectFiles, MARKERS } from './project-templates.js';
export type { ProjectOptions } from './project-templates.js';
export { dependentFile, e2eTestFile, reconcilerFile, resourceFile } from './resource-templates.js';
export type { KindTemplateOptions } from './resource-templates.js';
export { kindNames, kebab, pascal, camel, pluralOf } from './names.js';
export type { KindNames } from './names.js';
