import { join } from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { loadClientNodeKubeConfig } from '@tosdk/nestjs';
import { MySQLSchemaAppModule } from './app.module.js';
import { MySQLDatabase } from './database/mysql-database.js';
import { startEmbeddedCluster } from './dev/embedded-cluster.js';
import type { EmbeddedCluster } from './dev/embedded-cluster.js';
import type { MySQLSchemaSettings } from './settings.js';

/** The line `main` prints once the operator runs (tests and scripts wait for it). */
export const READY_LINE = 'mysql-schema operator: ready';

/** A running operator, as {@link runMySQLSchemaOperator} started it. */
export interface RunningMySQLSchemaOperator {
  /** `http://<host>:<port>` of the health and metrics endpoints. */
  readonly httpUrl: string;
  /** The embedded cluster in dev mode; undefined against a configured cluster. */
  readonly embedded: EmbeddedCluster | undefined;
  /** Stops the operator, the database pool and the embedded cluster. */
  stop(): Promise<void>;
}

/**
 * Starts the operator: checks the database once (a wrong `MYSQL_*` setting fails here with a
 * message naming the connection), then, against the configured cluster or (dev mode) an embedded
 * API server with the CRD and an example, the Nest application with `/health/*` and `/metrics`.
 * @throws MySQLConnectionError when the database cannot be used; EmbeddedClusterError in dev mode.
 */
export async function runMySQLSchemaOperator(
  settings: MySQLSchemaSettings,
): Promise<RunningMySQLSchemaOperator> {
  const probe = new MySQLDatabase({ ...settings.mysql, poolSize: 1 });
  try {
    await probe.schema('mysql');
  } finally {
    await probe.close().catch(() => undefined);
  }
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
    app = await NestFactory.create(
      MySQLSchemaAppModule.forRoot({
        mysql: settings.mysql,
        pollPeriodMs: settings.pollPeriodMs,
        operator: { kubeConfig },
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
