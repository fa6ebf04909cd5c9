// Compiled by workflow-dependent-types.spec.ts with the TypeScript compiler: every `@ts-expect-error`
// below must be needed (an unused one is itself an error), and the rest must compile.
import { Injectable } from '@nestjs/common';
import { CRUDKubernetesDependentResource, ResourceTypes, UpdateControl, defineResource } from '@tosdk/core';
import type { Context, CustomResource, DependentResource } from '@tosdk/core';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { Reconciler } from '@tosdk/nestjs';

type Page = CustomResource<{ html: string }>;
const Page = defineResource<Page>({ group: 'fixtures.tosdk.io', version: 'v1', kind: 'Page' });

@Injectable()
export class Templates {
  render(page: Page): string {
    return page.spec?.html ?? '';
  }
}

/** A Nest provider with an injected constructor parameter: Nest builds it, not core. */
@Injectable()
export class ConfigMapDependent extends CRUDKubernetesDependentResource<V1ConfigMap, Page> {
  constructor(private readonly templates: Templates) {
    super({ resourceType: ResourceTypes.ConfigMap });
  }
  protected desired(page: Page): V1ConfigMap {
    return { metadata: { name: page.metadata?.name }, data: { html: this.templates.render(page) } };
  }
}

/** A condition provider with an injected constructor parameter. */
@Injectable()
export class RenderedCondition {
  constructor(private readonly templates: Templates) {}
  isMet(_dependent: DependentResource<unknown, Page>, page: Page): boolean {
    return this.templates.render(page) !== '';
  }
}

/** Not a dependent: no reconcile method. */
export class NotADependent {
  constructor(readonly templates: Templates) {}
}

@Reconciler({
  resource: Page,
  workflow: {
    dependents: [
      { dependent: ConfigMapDependent, readyPostcondition: RenderedCondition },
      { dependent: () => new ConfigMapDependent(new Templates()), reconcilePrecondition: () => true },
    ],
  },
})
export class InjectedDependents implements Reconciler<Page> {
  reconcile(_page: Page, _context: Context<Page>): UpdateControl<Page> {
    return UpdateControl.noUpdate();
  }
}

@Reconciler({
  resource: Page,
  workflow: {
    // @ts-expect-error -- a class that constructs no DependentResource
    dependents: [{ dependent: NotADependent }],
  },
})
export class WrongDependent implements Reconciler<Page> {
  reconcile(): UpdateControl<Page> {
    return UpdateControl.noUpdate();
  }
}

@Reconciler({
  resource: Page,
  workflow: {
    // @ts-expect-error -- a class that constructs no condition
    dependents: [{ dependent: ConfigMapDependent, readyPostcondition: NotADependent }],
  },
})
export class WrongCondition implements Reconciler<Page> {
  reconcile(): UpdateControl<Page> {
    return UpdateControl.noUpdate();
  }
}
