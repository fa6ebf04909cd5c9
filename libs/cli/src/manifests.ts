import type { TosdkConfig } from './config.js';
import { TosdkCliError } from './errors.js';
import type { AppModel } from './introspect.js';
import type { Manifest } from './rbac.js';
import { leaderElectionOn } from './rbac.js';

/** How often the startup probe asks, so the operator is live and ready soon after it listens. */
const STARTUP_PERIOD_SECONDS = 5;

/**
 * The Deployment configuration with every default filled in. `app` is the loaded app: an Operator
 * built with sharding turns leader election (and so `leaderElectionEnv`) off, as in the RBAC.
 */
export function deploymentSettings(config: TosdkConfig, app: AppModel) {
  const d = config.deployment;
  if (!d?.image) {
    throw new TosdkCliError(
      'InvalidConfig',
      `tosdk config of ${config.name}: deployment.image is required for manifests and helm`,
    );
  }
  const replicas = d.replicas ?? 1;
  if (!Number.isInteger(replicas) || replicas < 1) {
    throw new TosdkCliError(
      'InvalidConfig',
      `tosdk config of ${config.name}: deployment.replicas must be a positive integer, got ${JSON.stringify(replicas)}`,
    );
  }
  const startupSeconds = d.startupSeconds ?? 180;
  if (!Number.isInteger(startupSeconds) || startupSeconds < 1) {
    throw new TosdkCliError(
      'InvalidConfig',
      `tosdk config of ${config.name}: deployment.startupSeconds must be a positive integer (seconds the operator may take to start), got ${startupSeconds}`,
    );
  }
  return {
    image: d.image,
    replicas,
    port: d.port ?? 8080,
    livenessPath: d.livenessPath ?? '/health/liveness',
    readinessPath: d.readinessPath ?? '/health/readiness',
    startupSeconds,
    env: { ...(d.env ?? {}), ...(leaderElectionOn(config, app) ? (d.leaderElectionEnv ?? {}) : {}) },
    resources: d.resources ?? { requests: { cpu: '50m', memory: '96Mi' }, limits: { memory: '256Mi' } },
    runAsUser: d.runAsUser ?? 1000,
  };
}

/** The namespace of `tosdk generate manifests`. */
export function namespaceManifest(config: TosdkConfig): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: config.namespace,
      labels: config.labels ?? { 'app.kubernetes.io/name': config.name },
    },
  };
}

/**
 * The operator's Deployment: the ServiceAccount of the generated RBAC, probes on the health
 * endpoints of the `http` port (a startup probe on the liveness path allowing
 * `deployment.startupSeconds`, then liveness and readiness), a non-root read-only container, and the leader election
 * environment when leader election is on (configured, or more than one replica of an app without
 * sharding: the same decision as `rbacManifests(app, config)`, so the lease Role and the environment
 * go together). `app` is the loaded app (`loadApp`).
 */
export function deploymentManifest(config: TosdkConfig, app: AppModel): Manifest {
  const s = deploymentSettings(config, app);
  const labels = config.labels ?? { 'app.kubernetes.io/name': config.name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: config.name, namespace: config.namespace, labels },
    spec: {
      replicas: s.replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: config.name,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: s.runAsUser,
            runAsGroup: s.runAsUser,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          containers: [
            {
              name: 'operator',
              image: s.image,
              imagePullPolicy: 'IfNotPresent',
              env: Object.entries(s.env).map(([name, value]) => ({ name, value })),
              ports: [{ name: 'http', containerPort: s.port }],
              // nothing listens until the operator has started (its informers synced): the startup
              // probe gives it startupSeconds, then liveness takes over (kube's advice for slow starters)
              startupProbe: {
                httpGet: { path: s.livenessPath, port: 'http' },
                periodSeconds: STARTUP_PERIOD_SECONDS,
                failureThreshold: Math.ceil(s.startupSeconds / STARTUP_PERIOD_SECONDS),
              },
              livenessProbe: {
                httpGet: { path: s.livenessPath, port: 'http' },
                periodSeconds: 10,
                failureThreshold: 3,
              },
              readinessProbe: {
                httpGet: { path: s.readinessPath, port: 'http' },
                periodSeconds: 5,
                failureThreshold: 3,
              },
              resources: s.resources,
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
              },
            },
          ],
        },
      },
    },
  };
}
