import type { KindTemplateOptions } from './resource-templates.js';
import { dependentFile, e2eTestFile, reconcilerFile, resourceFile } from './resource-templates.js';

/** Options of {@link projectFiles}. */
export interface ProjectOptions extends KindTemplateOptions {
  /** npm package name and directory, e.g. `my-operator`. */
  name: string;
  /** Test runner of the e2e test. */
  testRunner: 'vitest' | 'jest';
  /** Version range (or `file:` tarball) of each tosdk package. */
  tosdk: Record<'@tosdk/core' | '@tosdk/nestjs' | '@tosdk/apiserver' | '@tosdk/cli', string>;
  /** Overrides for local tarballs (every tosdk package and create-tosdk, which @tosdk/cli's schematics use). Defaults to none. */
  overrides?: Record<string, string>;
}

/** Markers the schematics insert at (keep them in the generated files). */
export const MARKERS = {
  imports: '// tosdk:reconciler-imports',
  reconcilers: '// tosdk:reconcilers',
  kinds: '// tosdk:kinds',
  kindImports: '// tosdk:kind-imports',
} as const;

/** Peers and tools the project installs (the majors tosdk supports). */
const VERSIONS = {
  '@kubernetes/client-node': '^2.0.1',
  '@nestjs/common': '^12.5.1',
  '@nestjs/core': '^12.5.1',
  '@nestjs/platform-express': '^12.5.1',
  '@nestjs/terminus': '^12.1.0',
  '@nestjs/testing': '^12.1.1',
  '@sinclair/typebox': '^0.34.52',
  'nestjs-pino': '^5.2.1',
  pino: '^10.4.0',
  'pino-http': '^11.0.0',
  'prom-client': '^15.1.3',
  'reflect-metadata': '^0.2.2',
  rxjs: '^7.8.2',
  '@types/node': '^24.0.0',
  typescript: '^6.0.2',
  vitest: '^4.1.2',
  'unplugin-swc': '^1.5.0',
  '@swc/core': '^1.10.0',
  jest: '^30.0.0',
  '@jest/globals': '^30.0.0',
  '@swc/jest': '^0.2.39',
} as const;

const pick = (...names: Array<keyof typeof VERSIONS>) =>
  Object.fromEntries(names.map((n) => [n, VERSIONS[n]]));
const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Every file of a new project (path → content). */
export function projectFiles(o: ProjectOptions): Record<string, string> {
  const n = o.names;
  const vitest = o.testRunner === 'vitest';
  const files: Record<string, string> = {};
  files['package.json'] = json({
    name: o.name,
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '>=22.19.0' },
    scripts: {
      build: 'tsc -p tsconfig.build.json',
      start: 'npm run build && node dist/main.js',
      'start:prod': 'node dist/main.js',
      test: vitest
        ? 'vitest run'
        : 'node --experimental-vm-modules --no-warnings=ExperimentalWarning node_modules/jest/bin/jest.js',
      typecheck: 'tsc -p tsconfig.json --noEmit',
      generate: 'npm run build && tosdk generate all',
      'generate:check': 'npm run build && tosdk generate all --check',
      ci: 'npm run typecheck && npm run generate:check && npm test',
    },
    dependencies: {
      '@tosdk/core': o.tosdk['@tosdk/core'],
      '@tosdk/nestjs': o.tosdk['@tosdk/nestjs'],
      ...pick(
        '@kubernetes/client-node',
        '@nestjs/common',
        '@nestjs/core',
        '@nestjs/platform-express',
        '@nestjs/terminus',
        '@sinclair/typebox',
        'nestjs-pino',
        'pino',
        'pino-http',
        'prom-client',
        'reflect-metadata',
        'rxjs',
      ),
    },
    devDependencies: {
      '@tosdk/apiserver': o.tosdk['@tosdk/apiserver'],
      '@tosdk/cli': o.tosdk['@tosdk/cli'],
      ...pick('@nestjs/testing', '@types/node', 'typescript'),
      ...(vitest
        ? pick('vitest', 'unplugin-swc', '@swc/core')
        : pick('jest', '@jest/globals', '@swc/jest', '@swc/core')),
    },
    // local tarballs: the tosdk packages' dependencies on each other resolve to them too
    ...(o.overrides ? { overrides: o.overrides } : {}),
  });
  const compilerOptions = {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'ES2023',
    strict: true,
    strictPropertyInitialization: false,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    isolatedModules: true,
    declaration: true,
    sourceMap: true,
    skipLibCheck: true,
    types: ['node'],
  };
  files['tsconfig.json'] = json({
    compilerOptions: { ...compilerOptions, noEmit: true },
    include: ['src', 'test', '*.ts'],
  });
  files['tsconfig.build.json'] = json({
    compilerOptions: { ...compilerOptions, outDir: 'dist', rootDir: 'src' },
    include: ['src'],
  });
  if (vitest) {
    files['vitest.config.ts'] = `import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// SWC compiles the app and the tests with decorator metadata (Nest injects by type).
export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  test: { include: ['test/**/*.e2e-spec.ts'], testTimeout: 60_000, hookTimeout: 60_000 },
});
`;
  } else {
    files['jest.config.mjs'] =
      `// SWC compiles the app and the tests with decorator metadata (Nest injects by type); Jest runs
// the ES modules natively (node --experimental-vm-modules, see the test script).
export default {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\\\.{1,2}/.*)\\\\.js$': '$1' },
  transform: {
    '^.+\\\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2023',
        },
        module: { type: 'es6' },
      },
    ],
  },
  testTimeout: 60_000,
};
`;
  }
  files['.gitignore'] = 'node_modules\ndist\n.tosdk\n*.tsbuildinfo\n';
  // generated files keep LF in every checkout, so `tosdk generate all --check` compares like with like
  files['.gitattributes'] = 'deploy/** text eol=lf\nchart/** text eol=lf\n';
  files['tosdk.config.mjs'] =
    `// \`npm run generate\` (tosdk generate all) writes deploy/ and chart/ from the compiled app;
// \`npm run generate:check\` fails when they differ from the code (run in CI by \`npm run ci\`).
import { defineConfig, offlineKubeConfig } from '@tosdk/cli';

export default defineConfig({
  name: '${o.name}',
  namespace: '${o.name}-system',
  app: {
    nestModule: async () => {
      await import('reflect-metadata');
      const { AppModule } = await import('./dist/app.module.js');
      return AppModule.forRoot({ logLevel: 'silent', operator: { kubeConfig: offlineKubeConfig(), readEnvironment: false } });
    },
  },
  deployment: {
    image: 'ghcr.io/example/${o.name}:0.1.0',
    replicas: 1,
    env: { HOST: '0.0.0.0', PORT: '8080', LOG_LEVEL: 'info' },
  },
  output: { crds: 'deploy/crds.yaml', rbac: 'deploy/rbac.yaml', manifests: 'deploy', helm: 'chart' },
});
`;
  files[`src/${n.file}.resource.ts`] = resourceFile(o);
  files[`src/${n.file}-config-map.dependent.ts`] = dependentFile(o);
  files[`src/${n.file}.reconciler.ts`] = reconcilerFile(o);
  files['src/reconcilers.ts'] = `import type { Type } from '@nestjs/common';
import { ${n.kind}Reconciler } from './${n.file}.reconciler.js';
${MARKERS.imports}

/** The reconcilers of this operator (\`nest g reconciler <name>\` adds to this list). */
export const RECONCILERS: Type[] = [
  ${n.kind}Reconciler,
  ${MARKERS.reconcilers}
];
`;
  files['src/kinds.ts'] = `import type { ResourceType } from '@tosdk/core';
import { ${n.kind} } from './${n.file}.resource.js';
${MARKERS.kindImports}

/** The custom kinds this operator defines (their CRDs are applied by the embedded dev cluster). */
export const KINDS: ResourceType[] = [
  ${n.kind},
  ${MARKERS.kinds}
];
`;
  files['src/app.module.ts'] = `import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { OperatorModule, resourceContextMixin } from '@tosdk/nestjs';
import type { OperatorModuleOptions } from '@tosdk/nestjs';
import { OperatorHealthModule } from '@tosdk/nestjs/health';
import { OperatorMetricsModule } from '@tosdk/nestjs/metrics';
import { RECONCILERS } from './reconcilers.js';

/** Options of {@link AppModule.forRoot}. */
export interface AppOptions {
  /** The OperatorModule's options (cluster, leader election...). Defaults to KUBECONFIG / in-cluster and TOSDK_* variables. */
  operator?: OperatorModuleOptions;
  /** pino level. Defaults to LOG_LEVEL, else info. */
  logLevel?: string;
}

/** The operator: reconcilers, /health/liveness and /health/readiness, /metrics, pino logs with the resource in context. */
@Module({})
export class AppModule {
  static forRoot(options: AppOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggerModule.forRoot({
          pinoHttp: { level: options.logLevel ?? process.env['LOG_LEVEL'] ?? 'info', mixin: resourceContextMixin, autoLogging: false },
        }),
        OperatorModule.forRoot(options.operator ?? {}),
        OperatorHealthModule.forRoot(),
        OperatorMetricsModule.forRoot(),
      ],
      providers: [...RECONCILERS],
    };
  }
}
`;
  files['src/dev-cluster.ts'] = `import { mkdir } from 'node:fs/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import { customResourceDefinitions, defineResource, KubernetesClient, ResourceID } from '@tosdk/core';
import type { KubernetesResource } from '@tosdk/core';
import { KINDS } from './kinds.js';
import { ${n.kind} } from './${n.file}.resource.js';

const CustomResourceDefinition = defineResource<KubernetesResource>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  scope: 'Cluster',
});

/**
 * \`npm start\` without a cluster: an in-memory Kubernetes API server (@tosdk/apiserver, a dev
 * dependency) with the CRDs and an example ${n.kind}; its kubeconfig is written to .tosdk/kubeconfig.
 */
export async function startDevCluster(): Promise<{ kubeConfig: KubeConfig; stop: () => Promise<void> }> {
  const { KubeApiServer } = await import('@tosdk/apiserver');
  const server = await KubeApiServer.start({ host: '127.0.0.1', port: Number(process.env['DEV_APISERVER_PORT'] ?? 0) });
  await mkdir('.tosdk', { recursive: true });
  await server.writeKubeconfig('.tosdk/kubeconfig');
  const client = KubernetesClient.fromKubeConfig(server.kubeConfig());
  try {
    for (const crd of customResourceDefinitions(KINDS)) {
      await client.create(CustomResourceDefinition, crd as unknown as KubernetesResource);
    }
    for (let i = 0; i < 100 && !(await client.request<{ resources?: unknown[] }>('/apis/${o.group}/${o.version}').catch(() => undefined)); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    if (!(await client.get(${n.kind}, new ResourceID('example', 'default')))) {
      await client.create(${n.kind}, {
        apiVersion: ${n.kind}.apiVersion,
        kind: ${n.kind}.kind,
        metadata: { name: 'example', namespace: 'default' },
        spec: { message: 'tosdk' },
      });
    }
  } finally {
    client.close();
  }
  console.log(\`dev mode: embedded API server at \${server.url} (kubeconfig: .tosdk/kubeconfig), example ${n.kind} default/example\`);
  return { kubeConfig: server.kubeConfig(), stop: () => server.stop() };
}
`;
  files['src/main.ts'] = `import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import type { KubeConfig } from '@kubernetes/client-node';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module.js';

/** A cluster is configured: KUBECONFIG is set, or the process runs in a pod. Otherwise dev mode. */
const clusterConfigured = (): boolean =>
  Boolean(process.env['KUBECONFIG']) ||
  (Boolean(process.env['KUBERNETES_SERVICE_HOST']) && existsSync('/var/run/secrets/kubernetes.io/serviceaccount/token'));

async function bootstrap(): Promise<void> {
  let kubeConfig: KubeConfig | undefined;
  let stopDevCluster: (() => Promise<void>) | undefined;
  if (!clusterConfigured()) {
    const dev = await (await import('./dev-cluster.js')).startDevCluster();
    kubeConfig = dev.kubeConfig;
    stopDevCluster = dev.stop;
  }
  const app = await NestFactory.create(AppModule.forRoot({ operator: kubeConfig ? { kubeConfig } : {} }), { bufferLogs: true });
  app.useLogger(app.get(Logger));
  const port = Number(process.env['PORT'] ?? 8080);
  const host = process.env['HOST'] ?? '127.0.0.1';
  try {
    await app.listen(port, host);
  } catch (error) {
    if ((error as { code?: string }).code !== 'EADDRINUSE') throw error;
    await app.close();
    await stopDevCluster?.();
    console.error(\`port \${port} on \${host} is in use (health and metrics listen there); start on another: PORT=\${port + 1} npm start\`);
    process.exit(1);
  }
  const shutdown = async () => {
    await app.close();
    await stopDevCluster?.();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
}

bootstrap().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
`;
  files[`test/${n.file}.e2e-spec.ts`] = e2eTestFile(o, o.testRunner);
  files['README.md'] = readme(o);
  return files;
}

function readme(o: ProjectOptions): string {
  const n = o.names;
  return `# ${o.name}

A Kubernetes operator on [tosdk](https://github.com/tosdk/tosdk) and Nest 12.

\`\`\`sh
npm install
npm start   # builds and runs against an embedded API server (no cluster needed); health on http://127.0.0.1:8080/health/readiness
npm test    # the e2e test (${o.testRunner === 'vitest' ? 'Vitest' : 'Jest'}) against an in-memory API server
\`\`\`

\`npm start\` uses your cluster instead when \`KUBECONFIG\` is set (first \`npm run generate\` and \`kubectl apply -f deploy/crds.yaml\`: a new project has no deploy/ yet).
Environment: \`PORT\` (default 8080) and \`HOST\` (default 127.0.0.1) of health and metrics, e.g.
\`PORT=8081 npm start\` when 8080 is taken; \`LOG_LEVEL\` (default info); \`DEV_APISERVER_PORT\` (the embedded
API server's port, default a free one).
In dev mode the embedded server's kubeconfig is \`.tosdk/kubeconfig\`:
\`KUBECONFIG=.tosdk/kubeconfig kubectl get ${n.plural}\`.

## Layout

- \`src/${n.file}.resource.ts\`: the \`${n.kind}\` kind, declared once with a TypeBox schema: the
  TypeScript type and the CRD come from it.
- \`src/${n.file}.reconciler.ts\`: the reconciler; its workflow manages
  \`src/${n.file}-config-map.dependent.ts\` (a ConfigMap, server-side applied, garbage collected).
- \`src/app.module.ts\`: the OperatorModule with health (\`/health/liveness\`, \`/health/readiness\`),
  Prometheus metrics (\`/metrics\`) and pino logs carrying the resource being reconciled.
- \`test/${n.file}.e2e-spec.ts\`: the operator against an in-memory API server (\`@tosdk/nestjs/testing\`).
- \`deploy/\`, \`chart/\`: generated from the code by \`npm run generate\` (CRD, least-privilege RBAC,
  namespace and Deployment with probes, a Helm chart). Commit them; \`npm run ci\` fails when they drift
  (\`tosdk generate all --check\`). Settings in \`tosdk.config.mjs\`.

## Adding to it

\`@tosdk/cli\` ships Nest schematics (collection.json, schema.json, as \`@nestjs/schematics\` does):

\`\`\`sh
npx @nestjs/cli@12 g -c @tosdk/cli reconciler Backup   # kind + reconciler with a dependent + e2e test, wired in
npx @nestjs/cli@12 g -c @tosdk/cli kind Schedule       # a kind only (listed in src/kinds.ts)
npm run generate                                       # then regenerate deploy/ and chart/
\`\`\`

(\`npx @nestjs/cli@12\` fetches Nest's CLI, which the project does not install; with it installed, \`nest g ...\`.
Without it: \`npx @angular-devkit/schematics-cli @tosdk/cli:reconciler --name Backup\`.)
`;
}
