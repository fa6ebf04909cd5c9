import { fileURLToPath } from 'node:url';
import { defineResource } from '@tosdk/core';
import type { CustomResource } from '@tosdk/core';

/** What a user asks for: the page and whether it is reachable from outside the cluster. */
export interface WebPageSpec {
  /** The page, served as `index.html`. Required; must not be blank. */
  html: string;
  /** Whether an Ingress routes `/<namespace>/<name>` to the page. Defaults to false. */
  exposed?: boolean;
}

/** What the operator reports. */
export interface WebPageStatus {
  /** The ConfigMap that holds the page. */
  configMapName?: string;
  /** The `metadata.generation` this status describes. */
  observedGeneration?: number;
  /** Whether the nginx Deployment has all its replicas ready. */
  ready?: boolean;
  /** Why the last reconciliation failed; absent after a success. */
  errorMessage?: string;
}

/** A `WebPage` object (`sample.tosdk.io/v1`). */
export type WebPage = CustomResource<WebPageSpec, WebPageStatus>;

/** The `WebPage` kind: group `sample.tosdk.io`, version `v1`, namespaced, plural `webpages`. */
export const WebPage = defineResource<WebPage>({ group: 'sample.tosdk.io', version: 'v1', kind: 'WebPage' });

/** The CRD manifest of {@link WebPage} (the same file `kubectl apply -f apps/webpage/deploy/` applies). */
export const WEBPAGE_CRD_PATH = fileURLToPath(new URL('../deploy/webpage-crd.yaml', import.meta.url));
