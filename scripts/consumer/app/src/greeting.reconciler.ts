import { DeleteControl, ResourceID, ResourceTypes, UpdateControl } from '@tosdk/core';
import type { Cleaner, Context, Reconciler as CoreReconciler } from '@tosdk/core';
import { Reconciler } from '@tosdk/nestjs';
import { GreetingFormatter } from './greeting-formatter.service.js';
import { Greeting } from './greeting.resource.js';

/** Renders a Greeting into a ConfigMap of the same name and reports it in the status. */
@Reconciler({ resource: Greeting })
export class GreetingReconciler implements CoreReconciler<Greeting>, Cleaner<Greeting> {
  // constructor injection by type: needs emitDecoratorMetadata in every toolchain the app uses
  constructor(private readonly formatter: GreetingFormatter) {}

  async reconcile(greeting: Greeting, context: Context<Greeting>): Promise<UpdateControl<Greeting>> {
    const name = greeting.metadata!.name!;
    const namespace = greeting.metadata!.namespace!;
    await context.client.apply(
      ResourceTypes.ConfigMap,
      {
        metadata: { name, namespace },
        data: { message: this.formatter.format(greeting.spec?.message ?? '') },
      },
      { fieldManager: 'greeting-reconciler' },
    );
    return UpdateControl.patchStatus<Greeting>({
      apiVersion: greeting.apiVersion,
      kind: greeting.kind,
      metadata: { name, namespace },
      status: { configMap: name, observedGeneration: greeting.metadata?.generation },
    });
  }

  async cleanup(greeting: Greeting, context: Context<Greeting>): Promise<DeleteControl> {
    const id = new ResourceID(greeting.metadata!.name!, greeting.metadata!.namespace);
    if (await context.client.get(ResourceTypes.ConfigMap, id)) {
      await context.client.delete(ResourceTypes.ConfigMap, id);
    }
    return DeleteControl.defaultDelete();
  }
}
