import type { Tomcat } from './tomcat.resource.js';

/** The Tomcat controller's name (metrics label `controller="tomcat"`, `TOSDK_CONTROLLER_TOMCAT_*`). */
export const TOMCAT_CONTROLLER = 'tomcat';

/** The Webapp controller's name (metrics label `controller="webapp"`, `TOSDK_CONTROLLER_WEBAPP_*`). */
export const WEBAPP_CONTROLLER = 'webapp';

/** Field manager of the Webapp controller's writes of the application lists. */
export const WEBAPP_FIELD_MANAGER = 'webapp-operator';

/** Label on every object the operator makes. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';

/** Value of {@link MANAGED_BY_LABEL}. */
export const MANAGED_BY_VALUE = 'tomcat-operator';

/** Label naming the Tomcat an object belongs to (also the pod selector of its Deployment). */
export const TOMCAT_LABEL = 'tomcat.sample.tosdk.io/tomcat';

/** Label of the ConfigMaps holding a Tomcat's application list. */
export const ROLE_LABEL = 'tomcat.sample.tosdk.io/role';

/** Selector of the Tomcat Deployment and Service informers. */
export const WORKLOAD_SELECTOR = `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}`;

/** Selector of the application-list ConfigMaps. */
export const WEBAPP_LIST_SELECTOR = `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE},${ROLE_LABEL}=webapps`;

/** Selector of Tomcat pods. */
export const TOMCAT_POD_SELECTOR = TOMCAT_LABEL;

/** Key of the application list in the ConfigMap: one `<war name> <url>` line per Webapp. */
export const WEBAPP_LIST_KEY = 'webapps.txt';

/** Pod-template annotation: SHA-256 of the application list, so a new list rolls the pods. */
export const WEBAPPS_HASH_ANNOTATION = 'tomcat.sample.tosdk.io/webapps-sha256';

/** Pod-template annotation: the context paths the pods serve, comma separated. */
export const CONTEXTS_ANNOTATION = 'tomcat.sample.tosdk.io/contexts';

/** The Deployment and Service of a Tomcat: its own name. */
export function workloadName(tomcat: Tomcat): string {
  return tomcat.metadata!.name!;
}

/** The ConfigMap with the application list of the Tomcat named `tomcatName`. */
export function webappListName(tomcatName: string): string {
  return `${tomcatName}-webapps`;
}
