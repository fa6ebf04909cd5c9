import { join } from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { loadKubeConfig } from '@tosdk/core';
import type { KubeConfigSource } from '@tosdk/core';
import { WebPageAppModule } from './app.module.js';
import { startEmbeddedCluster } from './dev/embedded-cluster.js';
import type { EmbeddedCluster } from './dev/embedded-cluster.js';
import type { WebPageSettings } from './settings.js';

/** The line `main` prints once the operator runs (tests and scripts wait for it). */
export const READY_LINE = 'webpage operator: ready';

/** A running operator, as {@link runWebPageOperator} started it. */
export interface RunningWebPageOperator {
  /** `http://<host>:<port>` of the health and metrics endpoints. */
  readonly httpUrl: string;
  /** The embedded cluster in dev mode; undefined against a configured cluster. */
  readonly embedded: EmbeddedCluster | undefined;
  /** Stops the operator (Nest shutdown: the operator stops, the lease is released) and the embedded cluster. */
  stop(): Promise<void>;
}

/**
 * Starts the operator: against the configured cluster, or (dev mode) an embedded API server
 * prepared with the CRD and the example page; then the Nest application with the operator,
 * `/health/*` and `/metrics` on `settings.httpHost:httpPort`.
 */
export async function runWebPageOperator(
  settings: WebPageSettings,
  /** Where the logs go (e.g. pino-pretty in a terminal). Defaults to JSON lines on stdout. */
  logStream?: NodeJS.WritableStream,
): Promise<RunningWebPageOperator> {
  let embedded: EmbeddedCluster | undefined;
  let kubeConfig: KubeConfigSource;
  if (settings.clusterConfigured) {
    // core's loader: @kubernetes/client-node is loaded only for exec plugins, OIDC and proxy-url
    kubeConfig = loadKubeConfig();
  } else {
    embedded = await startEmbeddedCluster({
      kubeconfigPath: join(settings.devDir, 'kubeconfig'),
      port: settings.devApiServerPort,
    });
    kubeConfig = embedded.kubeConfig;
  }
  let app: INestApplication | undefined;
  try {
    app = await NestFactory.create(
      WebPageAppModule.forRoot({
        flavour: settings.flavour,
        ...(logStream ? { logStream } : {}),
        operator: {
          kubeConfig,
          ...(settings.leaderElection ? { leaderElection: { leaseName: settings.leaseName } } : {}),
        },
      }),
      { bufferLogs: true },
    );
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
