import { fileURLToPath } from 'node:url';
import { defineResource } from '@tosdk/core';
import type { CustomResource } from '@tosdk/core';

/** What a user asks for: a Tomcat version and how many pods run it. */
export interface TomcatSpec {
  /** The Tomcat image tag (`10.1`, `11.0-jdk21`, ...). Required. */
  version: string;
  /** How many Tomcat pods run. Defaults to 1. */
  replicas?: number;
}

/** What the Tomcat controller reports. */
export interface TomcatStatus {
  /** Pods of the Tomcat Deployment that are ready. */
  readyReplicas?: number;
  /** The `metadata.generation` this status describes. */
  observedGeneration?: number;
  /** Why the last reconciliation failed (e.g. a name the Service kind refuses); absent otherwise. */
  errorMessage?: string;
}

/** A `Tomcat` object (`tomcat.sample.tosdk.io/v1`). */
export type Tomcat = CustomResource<TomcatSpec, TomcatStatus>;

/** The `Tomcat` kind: group `tomcat.sample.tosdk.io`, version `v1`, namespaced, plural `tomcats`. */
export const Tomcat = defineResource<Tomcat>({
  group: 'tomcat.sample.tosdk.io',
  version: 'v1',
  kind: 'Tomcat',
});

/** What a user asks for: a web application (a WAR at a URL) deployed into a Tomcat of the same namespace. */
export interface WebappSpec {
  /** The name of the Tomcat to deploy into (same namespace). Required. */
  tomcat: string;
  /** Where the WAR file is downloaded from (`http` or `https`). Required. */
  url: string;
  /** The context path it is served under (`/shop`; `/` for the root). Required. */
  contextPath: string;
}

/** What the Webapp controller reports. */
export interface WebappStatus {
  /** The ready Tomcat pods that serve this Webapp (their pod template lists its context path). */
  deployedOn?: string[];
  /** Whether every pod the Tomcat asks for serves it. */
  ready?: boolean;
  /** The `metadata.generation` this status describes. */
  observedGeneration?: number;
  /** Why it is not deployed (no such Tomcat, invalid spec, context path taken); absent otherwise. */
  errorMessage?: string;
}

/** A `Webapp` object (`tomcat.sample.tosdk.io/v1`). */
export type Webapp = CustomResource<WebappSpec, WebappStatus>;

/** The `Webapp` kind: group `tomcat.sample.tosdk.io`, version `v1`, namespaced, plural `webapps`. */
export const Webapp = defineResource<Webapp>({
  group: 'tomcat.sample.tosdk.io',
  version: 'v1',
  kind: 'Webapp',
});

/** The CRD manifests of both kinds (the files `kubectl apply -f apps/tomcat/deploy/` applies). */
export const TOMCAT_CRD_PATHS = [
  fileURLToPath(new URL('../deploy/tomcat-crd.yaml', import.meta.url)),
  fileURLToPath(new URL('../deploy/webapp-crd.yaml', import.meta.url)),
];
