import type { WebPage } from './webpage.resource.js';

/** Field manager of every write the operator makes (server-side apply). */
export const FIELD_MANAGER = 'webpage-operator';

/** The controller's name (metrics labels, `TOSDK_CONTROLLER_WEBPAGE_*` variables, logs). */
export const CONTROLLER_NAME = 'webpage';

/** Label on every object the operator makes; the secondary informers select on it. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';

/** Value of {@link MANAGED_BY_LABEL}. */
export const MANAGED_BY_VALUE = 'webpage-operator';

/** Label selector of the operator's secondary informers. */
export const SECONDARY_SELECTOR = `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}`;

/** Label naming the WebPage an object belongs to (also the Deployment's pod selector). */
export const WEBPAGE_LABEL = 'sample.tosdk.io/webpage';

/** Pod-template annotation with the SHA-256 of the HTML, so a page change rolls the pods. */
export const HTML_HASH_ANNOTATION = 'sample.tosdk.io/html-sha256';

/** The name of the page's ConfigMap: `<name>-html`. */
export function configMapName(page: WebPage): string {
  return `${page.metadata!.name!}-html`;
}

/** The name of the page's Deployment, Service and Ingress: the WebPage's own name. */
export function workloadName(page: WebPage): string {
  return page.metadata!.name!;
}
