/**
 * `@tosdk/cli`: `tosdk generate crds|rbac|manifests|helm|webhooks [--check]`, and the same as functions.
 *
 * @packageDocumentation
 */
export * from './config.js';
export * from './errors.js';
export { loadApp } from './introspect.js';
export type { AppModel, ControllerModel, DependentKind, Namespaces, WatchedKind } from './introspect.js';
export { computeGrants, rbacManifests } from './rbac.js';
export type { Manifest } from './rbac.js';
export { deploymentManifest, namespaceManifest } from './manifests.js';
export { helmChart } from './helm.js';
export { checkOnApiServer, generateCrds, kindsOf } from './crds.js';
export { generate, render, TARGETS } from './generate.js';
export { loadWebhooks, webhookSettings, withConversion } from './webhooks.js';
export type { WebhookModel } from './webhooks.js';
export type { GenerateOptions, GenerateResult, Target } from './generate.js';
export { loadConfig, main } from './cli.js';
