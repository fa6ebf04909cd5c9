import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { Test } from '@nestjs/testing';
import type { TestingModule } from '@nestjs/testing';
import { KubernetesClient, ResourceTypes, UpdateControl } from '@tosdk/core';
import ts from 'typescript';
import { OperatorModule, Reconciler } from '../index.js';
import type { OperatorModuleOptions } from '../index.js';
import { CapturingLogger } from './support/capturing-logger.js';

const here = dirname(fileURLToPath(import.meta.url));

function offline(): OperatorModuleOptions {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return { client: KubernetesClient.fromKubeConfig(kc), autoStart: false, readEnvironment: false };
}

async function bootstrap(providers: unknown[]): Promise<{ module: TestingModule; logger: CapturingLogger }> {
  const module = await Test.createTestingModule({
    imports: [OperatorModule.forRoot(offline())],
    providers: providers as never[],
  }).compile();
  const logger = new CapturingLogger();
  module.useLogger(logger);
  return { module, logger };
}

// decorators applied the way JavaScript code or a cast would, past the compile-time checks
const untypedReconciler = Reconciler as unknown as (options?: unknown) => ClassDecorator;

@untypedReconciler()
class BareReconciler {
  reconcile() {
    return UpdateControl.noUpdate();
  }
}

@untypedReconciler({ resourceType: ResourceTypes.ConfigMap })
class OldNameReconciler {
  reconcile() {
    return UpdateControl.noUpdate();
  }
}

@untypedReconciler({ resource: 'ConfigMap' })
class StringKindReconciler {
  reconcile() {
    return UpdateControl.noUpdate();
  }
}

@Reconciler({ resource: ResourceTypes.ConfigMap, name: 'maps-a' })
class FirstMapsReconciler {
  reconcile() {
    return UpdateControl.noUpdate();
  }
}

@Reconciler({ resource: ResourceTypes.ConfigMap, name: 'maps-b' })
class SecondMapsReconciler {
  reconcile() {
    return UpdateControl.noUpdate();
  }
}

describe('@Reconciler messages', () => {
  it.each([
    [BareReconciler, 'BareReconciler', /resource \(the primary kind\) is missing/],
    [OldNameReconciler, 'OldNameReconciler', /called resource, not resourceType/],
    [StringKindReconciler, 'StringKindReconciler', /not a resource type/],
  ])('missing or wrong options fail the bootstrap naming the class (%#)', async (type, name, problem) => {
    const { module } = await bootstrap([type]);
    const failure = module.init();
    await expect(failure).rejects.toMatchObject({ code: 'OperatorModuleConfiguration' });
    await expect(failure).rejects.toThrow(name);
    await expect(failure).rejects.toThrow(problem);
    await expect(failure).rejects.toThrow(/@Reconciler\(\{ resource: /);
    await module.close().catch(() => undefined);
  });

  it('the "no reconcilers" warning names the real option, resource', async () => {
    const { module, logger } = await bootstrap([]);
    await module.init();
    const warning = logger.warnings().find((w) => w.includes('no @Reconciler providers found'));
    expect(warning).toBeDefined();
    expect(warning).toContain('@Reconciler({ resource: ');
    expect(warning).not.toContain('resourceType');
    await module.close();
  });

  it('two controllers on one kind log a warning naming both and the kind', async () => {
    const { module, logger } = await bootstrap([FirstMapsReconciler, SecondMapsReconciler]);
    await module.init();
    const warning = logger.warnings().find((w) => w.includes('both reconcile'));
    expect(warning).toBeDefined();
    expect(warning).toMatch(/maps-a and maps-b both reconcile configmaps\/v1/);
    await module.close();
  });

  it('one controller per kind logs no such warning', async () => {
    const { module, logger } = await bootstrap([FirstMapsReconciler]);
    await module.init();
    expect(logger.warnings().filter((w) => w.includes('both reconcile'))).toEqual([]);
    await module.close();
  });

  it('a reconciler whose resource does not match Reconciler<T> is a type error (tsc on a fixture)', () => {
    const configPath = resolve(here, '../../../../tsconfig.json');
    const config = ts.getParsedCommandLineOfConfigFile(
      configPath,
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
        },
      },
    )!;
    const fixture = join(here, 'types/reconciler-kind.fixture.ts');
    const program = ts.createProgram([fixture], { ...config.options, noEmit: true });
    const diagnostics = ts
      .getPreEmitDiagnostics(program, program.getSourceFile(fixture))
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    // every @ts-expect-error in the fixture was needed (an unused one is reported), nothing else fails
    expect(diagnostics).toEqual([]);
    const text = program.getSourceFile(fixture)!.text;
    expect(text.match(/^\/\/ @ts-expect-error --/gm)?.length).toBe(3);
  }, 60_000);
});
