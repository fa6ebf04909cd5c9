// Helpers of the Tomcat end-to-end tests (test/tomcat-*.e2e-spec.ts): test code, not shipped.
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll } from '@jest/globals';
import { noopLogger } from '@tosdk/core';
import { createOperatorTestingModule, OperatorTestEnvironment } from '@tosdk/nestjs/testing';
import type { OperatorTestingContext } from '@tosdk/nestjs/testing';
import { TomcatAppModule } from '../../app.module.js';
import { Tomcat, TOMCAT_CRD_PATHS, Webapp } from '../../tomcat.resource.js';
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

/**
 * The Tomcat operator of each test on one in-memory API server that simulates workloads: registers
 * the suite's set-up and tear-down (the server for the file, each test's operator closed after it)
 * and returns what starts a test's operator (`http`: also its HTTP server).
 */
export function tomcatOperatorPerTest(
  options: { http?: boolean } = {},
): () => Promise<OperatorTestingContext> {
  let env: OperatorTestEnvironment | undefined;
  let current: OperatorTestingContext | undefined;
  beforeAll(async () => {
    env = await OperatorTestEnvironment.start({
      crds: TOMCAT_CRD_PATHS,
      server: { simulateWorkloads: { readyDelayMs: 20 } },
    });
  });
  afterAll(async () => {
    await env?.stop();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return async () => {
    current = await createOperatorTestingModule({
      testEnvironment: env,
      ...(options.http ? { http: true } : {}),
      imports: [
        TomcatAppModule.forRoot({
          logStream: quietLogs,
          defaultMetrics: false,
          operator: { logger: noopLogger },
        }),
      ],
    });
    return current;
  };
}
