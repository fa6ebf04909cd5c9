import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { resolveWorkflowProviders } from '../workflow-providers.js';

@Injectable()
class Templates {
  readonly html = '<p>hi</p>';
}

@Injectable()
class ConfigMapDependent {
  constructor(readonly templates: Templates) {}
}

@Injectable()
class ExposedCondition {
  isMet() {
    return true;
  }
}

describe('resolveWorkflowProviders', () => {
  it('replaces provider classes of a managed workflow with their injected instances and keeps functions', async () => {
    const module = await Test.createTestingModule({
      providers: [Templates, ConfigMapDependent, ExposedCondition],
    }).compile();
    const factory = () => ({ name: 'made-by-factory' });
    const condition = () => true;
    const resolved = resolveWorkflowProviders(
      {
        name: 'webpage',
        workflow: {
          dependents: [
            { dependent: ConfigMapDependent, reconcilePrecondition: ExposedCondition },
            { dependent: factory, readyPostcondition: condition, dependsOn: ['configmap'] },
          ],
        },
      },
      module.get(ModuleRef),
    );
    const [first, second] = resolved.workflow.dependents as Array<Record<string, unknown>>;
    expect(first['dependent']).toBe(module.get(ConfigMapDependent));
    expect((first['dependent'] as ConfigMapDependent).templates.html).toBe('<p>hi</p>');
    expect(first['reconcilePrecondition']).toBeInstanceOf(ExposedCondition);
    expect(second).toEqual({ dependent: factory, readyPostcondition: condition, dependsOn: ['configmap'] });
    const plain = { name: 'x' };
    expect(resolveWorkflowProviders(plain, module.get(ModuleRef))).toBe(plain);
    await module.close();
  });
});
