/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call } from './http-helper.js';

/**
 * Review S14: pod specs (of Pods and of every workload's pod template) that kube-apiserver 1.32
 * refuses with a 422 were stored here (pkg/apis/core/validation ValidatePodSpec: validateProbe,
 * ValidateEnv, ValidateVolumes, ValidateSecurityContext, validateAffinity,
 * validateTopologySpreadConstraints, ValidateTolerations): an operator whose Deployment has a
 * liveness probe with successThreshold 2, an env var reading a secret without a key, a configMap
 * volume item escaping with `..`, or a toleration with `Exists` and a value passed its tests here and
 * failed on a cluster.
 */
const NS = '/namespaces/default';
const PODS = `/api/v1${NS}/pods`;
const DEPLOYMENTS = `/apis/apps/v1${NS}/deployments`;

const pod = (name: string, spec: Record<string, unknown>) => ({ metadata: { name }, spec });
const app = (more: Record<string, unknown> = {}) => ({ name: 'app', image: 'nginx:1.27', ...more });

describe('review s14: pod spec validation', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  /** The `field: message` of each cause of a 422 (or the status when it is not one). */
  const refused = async (path: string, body: unknown): Promise<string[]> => {
    const r = await call(server, 'POST', path, body);
    if (r.status !== 422) return [`status ${r.status}`];
    return r.json<any>().details.causes.map((c: any) => `${c.field}: ${c.message}`);
  };

  it('[FINDING S14-PV1] probes need exactly one handler, valid ports, thresholds of 0 or more and successThreshold 1 for liveness and startup; init containers have none unless sidecars', async () => {
    const c = 'spec.containers[0]';
    expect(
      await refused(
        PODS,
        pod('probes', {
          containers: [
            app({
              lifecycle: { preStop: { httpGet: { port: 70000, scheme: 'FTP' } } },
              livenessProbe: {
                httpGet: { port: 'http-port-too-long' },
                tcpSocket: { port: 8080 },
                periodSeconds: -1,
                successThreshold: 2,
              },
              readinessProbe: { initialDelaySeconds: 5 },
              startupProbe: { exec: { command: [] }, failureThreshold: -3 },
            }),
          ],
        }),
      ),
    ).toEqual([
      `${c}.lifecycle.preStop.httpGet.port: Invalid value: 70000: must be between 1 and 65535, inclusive`,
      `${c}.lifecycle.preStop.httpGet.scheme: Unsupported value: "FTP": supported values: "HTTP", "HTTPS"`,
      `${c}.livenessProbe.httpGet.port: Invalid value: "http-port-too-long": must be no more than 15 characters`,
      `${c}.livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type`,
      `${c}.livenessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0`,
      `${c}.livenessProbe.successThreshold: Invalid value: 2: must be 1`,
      `${c}.readinessProbe: Required value: must specify a handler type`,
      `${c}.startupProbe.exec.command: Required value`,
      `${c}.startupProbe.failureThreshold: Invalid value: -3: must be greater than or equal to 0`,
    ]);
    expect(
      await refused(
        PODS,
        pod('init-probe', {
          initContainers: [
            { name: 'init', image: 'busybox', livenessProbe: { exec: { command: ['true'] } } },
            { name: 'sidecar', image: 'envoy', restartPolicy: 'OnFailure' },
          ],
          containers: [app()],
        }),
      ),
    ).toEqual([
      'spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always',
      'spec.initContainers[1].restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
    ]);
    // a workload's template is checked the same way, at its own path
    expect(
      await refused(DEPLOYMENTS, {
        metadata: { name: 'liveness' },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: {
              containers: [app({ livenessProbe: { exec: { command: ['true'] }, successThreshold: 3 } })],
            },
          },
        },
      }),
    ).toEqual([
      'spec.template.spec.containers[0].livenessProbe.successThreshold: Invalid value: 3: must be 1',
    ]);
    // minimal probes pass: kube's defaults (periodSeconds 10, successThreshold 1, path /) come first
    const ok = await call(
      server,
      'POST',
      PODS,
      pod('probes-ok', {
        initContainers: [
          {
            name: 'sidecar',
            image: 'envoy',
            restartPolicy: 'Always',
            readinessProbe: { tcpSocket: { port: 'admin' } },
          },
        ],
        containers: [
          app({
            livenessProbe: { httpGet: { port: 8080 } },
            readinessProbe: {
              httpGet: { port: 'http', path: '/ready', scheme: 'HTTPS' },
              successThreshold: 2,
            },
            startupProbe: { grpc: { port: 9090 } },
            lifecycle: { preStop: { exec: { command: ['sleep', '5'] } } },
          }),
        ],
      }),
    );
    expect(ok.status).toBe(201);
    expect(ok.json<any>().spec.containers[0].livenessProbe).toMatchObject({
      httpGet: { port: 8080, path: '/', scheme: 'HTTP' },
      periodSeconds: 10,
      successThreshold: 1,
    });
  });
});
