// Compiled by reconciler-messages.spec.ts with the TypeScript compiler: every `@ts-expect-error`
// below must be needed (an unused one is itself an error), and the rest must compile.
import { defineResource, UpdateControl } from '@tosdk/core';
import type { Context, CustomResource } from '@tosdk/core';
import { Reconciler } from '@tosdk/nestjs';

type Page = CustomResource<{ html: string }>;
const Page = defineResource<Page>({ group: 'fixtures.tosdk.io', version: 'v1', kind: 'Page' });
type Quota = CustomResource<{ limit: number }>;
const Quota = defineResource<Quota>({ group: 'fixtures.tosdk.io', version: 'v1', kind: 'Quota' });

@Reconciler({ resource: Page })
export class PageReconciler implements Reconciler<Page> {
  reconcile(page: Page, _context: Context<Page>): UpdateControl<Page> {
    void page.spec?.html;
    return UpdateControl.noUpdate();
  }
}

// @ts-expect-error -- resource is Page but the class reconciles Quota
@Reconciler({ resource: Page })
export class WrongKindReconciler implements Reconciler<Quota> {
  reconcile(quota: Quota): UpdateControl<Quota> {
    void quota.spec?.limit;
    return UpdateControl.noUpdate();
  }
}

// @ts-expect-error -- no reconcile method
@Reconciler({ resource: Quota })
export class NoReconcileMethod {}

// @ts-expect-error -- the option is `resource`, not core's `resourceType`
@Reconciler({ resourceType: Page })
export class OldOptionName implements Reconciler<Page> {
  reconcile(): UpdateControl<Page> {
    return UpdateControl.noUpdate();
  }
}
