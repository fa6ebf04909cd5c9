// Helpers of the Tomcat end-to-end tests (test/tomcat-*.e2e-spec.ts): test code, not shipped.
import { Writable } from 'node:stream';
import { Tomcat, Webapp } from '../../tomcat.resource.js';
import type { TomcatSpec, WebappSpec } from '../../tomcat.resource.js';

/** Swallows pino's lines. */
export const quietLogs = new Writable({
  write(_chunk, _encoding, done) {
    done();
  },
});

/** A Tomcat to create. */
export function tomcat(namespace: string, name: string, spec: TomcatSpec): Tomcat {
  return { apiVersion: Tomcat.apiVersion, kind: Tomcat.kind, metadata: { name, namespace }, spec };
}

/** A Webapp to create. */
export function webapp(namespace: string, name: string, spec: WebappSpec): Webapp {
  return { apiVersion: Webapp.apiVersion, kind: Webapp.kind, metadata: { name, namespace }, spec };
}
