import { join } from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { loadClientNodeKubeConfig } from '@tosdk/nestjs';
import { TomcatAppModule } from './app.module.js';
import { startEmbeddedCluster } from './dev/embedded-cluster.js';
import type { EmbeddedCluster } from './dev/embedded-cluster.js';
import type { TomcatSettings } from './settings.js';

/** The line `main` prints once the operator runs (tests and scripts wait for it). */
export const READY_LINE = 'tomcat operator: ready';

/** A running operator, as {@link runTomcatOperator} started it. */
export interface RunningTomcatOperator {
  /** `http://<host>:<port>` of the health and metrics endpoints. */
  readonly httpUrl: string;
  /** The embedded cluster in dev mode; undefined against a configured cluster. */
  readonly embedded: EmbeddedCluster | undefined;
  /** Stops the operator and the embedded cluster. */
  stop(): Promise<void>;
}

/**
 * Starts the operator: against the configured cluster or (dev mode) an embedded API server with the
 * CRDs and the examples, the Nest application with both controllers, `/health/*` and `/metrics`.
 * @throws EmbeddedClusterError in dev mode when the embedded cluster cannot be prepared.
 */
export async function runTomcatOperator(settings: TomcatSettings): Promise<RunningTomcatOperator> {
  let embedded: EmbeddedCluster | undefined;
  let kubeConfig: KubeConfig;
  if (settings.clusterConfigured) {
    kubeConfig = loadClientNodeKubeConfig();
  } else {
    embedded = await startEmbeddedCluster(join(settings.devDir, 'kubeconfig'));
    kubeConfig = embedded.kubeConfig;
  }
  let app: INestApplication | undefined;
  try {
    app = await NestFactory.create(TomcatAppModule.forRoot({ operator: { kubeConfig } }), {
      bufferLogs: true,
    });
    app.useLogger(app.get(Logger));
    await app.listen(settings.httpPort, settings.httpHost);
  } catch (error) {
    await app?.close().catch(() => undefined);
    await embedded?.stop();
    throw error;
  }
  const address = (app.getHttpServer() as Server).address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const running = app;
  return {
    httpUrl: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}`,
    embedded,
    stop: async () => {
      try {
        await running.close();
      } finally {
        await embedded?.stop();
      }
    },
  };
}
