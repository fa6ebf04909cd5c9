import type { V1ConfigMap, V1Pod } from '@kubernetes/client-node';
import {
  DeleteControl,
  ErrorStatusUpdateControl,
  InformerEventSource,
  ResourceID,
  ResourceTypes,
  UpdateControl,
} from '@tosdk/core';
import type {
  Cleaner,
  Context,
  EventSourceContext,
  EventSources,
  KubernetesResource,
  PrimaryResourceCache,
  SecondaryToPrimaryMapper,
} from '@tosdk/core';
import { Reconciler } from '@tosdk/nestjs';
import {
  CONTEXTS_ANNOTATION,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  ROLE_LABEL,
  TOMCAT_LABEL,
  TOMCAT_POD_SELECTOR,
  WEBAPP_CONTROLLER,
  WEBAPP_FIELD_MANAGER,
  WEBAPP_LIST_KEY,
  WEBAPP_LIST_SELECTOR,
  webappListName,
} from '../tomcat-names.js';
import { Tomcat, Webapp } from '../tomcat.resource.js';
import type { WebappStatus } from '../tomcat.resource.js';
import { tomcatNameProblem } from '../tomcat/tomcat-name.js';
import { renderWebappList, webappList } from './webapp-list.js';
import { InvalidWebappError, validateWebapp } from './webapp-validation.js';

/**
 * A ConfigMap the operator did not make has the name of a Tomcat's application list: it is left as
 * it is (taking it over would add the Tomcat as its owner, and garbage collection would delete it
 * with the Tomcat), and the Webapps of that Tomcat are not deployed until it is renamed or deleted.
 */
export class WebappListNameTakenError extends Error {
  /** Stable error code. */
  readonly code = 'WebappListNameTaken';
  constructor(
    /** `<namespace>/<name>` of the ConfigMap. */
    readonly configMap: string,
    /** The Tomcat whose list it would be. */
    readonly tomcat: string,
  ) {
    super(
      `ConfigMap ${configMap} exists and is not the application list of Tomcat "${tomcat}" (it lacks the label ${ROLE_LABEL}=webapps): the operator does not take it over; rename or delete that ConfigMap, and the Webapp is deployed`,
    );
    this.name = 'WebappListNameTakenError';
  }
}

/** How often a Webapp blocked by a {@link WebappListNameTakenError} looks again (that ConfigMap is not watched). */
export const LIST_NAME_TAKEN_RECHECK_MS = 30_000;

const isOperatorList = (c: V1ConfigMap) =>
  c.metadata?.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_VALUE &&
  c.metadata?.labels?.[ROLE_LABEL] === 'webapps';

/** Name of the index of Webapps by the Tomcat they name (`<namespace>/<tomcat>`). */
export const BY_TOMCAT_INDEX = 'byTomcat';

/** Names of the Webapp controller's event sources. */
export const WebappSources = Object.freeze({
  tomcats: 'tomcats',
  lists: 'webapp-lists',
  pods: 'tomcat-pods',
});

const tomcatKey = (namespace: string | undefined, tomcat: string) => `${namespace ?? ''}/${tomcat}`;

function isPodReady(pod: V1Pod): boolean {
  return (
    !pod.metadata?.deletionTimestamp &&
    pod.status?.phase === 'Running' &&
    (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')
  );
}

/**
 * The Webapp controller (JOSDK's `WebappReconciler`). Webapps name their Tomcat in `spec.tomcat`;
 * an index on the Webapp cache by that field maps every Tomcat event (and every event of its pods and
 * its application list) to the Webapps that reference it (the seed's
 * `InformerEventSourceConfiguration.from(Tomcat.class, Webapp.class)` with a secondary-to-primary
 * mapper), and a primary-to-secondary mapper finds a Webapp's Tomcat in the cache.
 *
 * Deploying is writing the Tomcat's application list: a ConfigMap `<tomcat>-webapps` (owned by the
 * Tomcat) rendered from all its Webapps, which the Tomcat pods' init container reads; the Tomcat
 * controller rolls the pods when it changes. The status lists the ready pods whose template serves
 * the Webapp's context path. A Cleaner: a deleted Webapp is taken out of the list first.
 */
@Reconciler({ resource: Webapp, name: WEBAPP_CONTROLLER, fieldManager: WEBAPP_FIELD_MANAGER })
export class WebappReconciler implements Reconciler<Webapp>, Cleaner<Webapp> {
  private webapps: PrimaryResourceCache<Webapp> | undefined;
  private pods: InformerEventSource<V1Pod, Webapp> | undefined;
  private tomcats: InformerEventSource<Tomcat, Webapp> | undefined;
  private lists: InformerEventSource<V1ConfigMap, Webapp> | undefined;

  prepareEventSources(context: EventSourceContext<Webapp>): EventSources {
    const cache = context.primaryCache;
    this.webapps = cache;
    cache.addIndexer?.(BY_TOMCAT_INDEX, (w) =>
      w.spec?.tomcat ? [tomcatKey(w.metadata?.namespace, w.spec.tomcat)] : [],
    );
    // Tomcat, pod or list of Tomcat `t` -> every Webapp naming `t`
    const byTomcatName =
      <R extends KubernetesResource>(nameOf: (r: R) => string | undefined): SecondaryToPrimaryMapper<R> =>
      (secondary) => {
        const name = nameOf(secondary);
        if (!name || !cache.byIndex) return [];
        return cache
          .byIndex(BY_TOMCAT_INDEX, tomcatKey(secondary.metadata?.namespace, name))
          .map((w) => ResourceID.fromResource(w));
      };
    // pods of Tomcat `t` (unknown names): read through an index of the source, not per primary
    this.pods = new InformerEventSource<V1Pod, Webapp>(
      {
        type: ResourceTypes.Pod,
        labelSelector: TOMCAT_POD_SELECTOR,
        secondaryToPrimaryMapper: byTomcatName<V1Pod>((p) => p.metadata?.labels?.[TOMCAT_LABEL]),
        indexers: {
          [BY_TOMCAT_INDEX]: (p) => {
            const name = p.metadata?.labels?.[TOMCAT_LABEL];
            return name ? [tomcatKey(p.metadata?.namespace, name)] : [];
          },
        },
      },
      context,
    );
    this.tomcats = new InformerEventSource<Tomcat, Webapp>(
      {
        type: Tomcat,
        secondaryToPrimaryMapper: byTomcatName<Tomcat>((t) => t.metadata?.name),
        primaryToSecondaryMapper: (w) =>
          w.spec?.tomcat ? [new ResourceID(w.spec.tomcat, w.metadata?.namespace)] : [],
      },
      context,
    );
    this.lists = new InformerEventSource<V1ConfigMap, Webapp>(
      {
        type: ResourceTypes.ConfigMap,
        labelSelector: WEBAPP_LIST_SELECTOR,
        secondaryToPrimaryMapper: byTomcatName<V1ConfigMap>((c) => c.metadata?.labels?.[TOMCAT_LABEL]),
        primaryToSecondaryMapper: (w) =>
          w.spec?.tomcat ? [new ResourceID(webappListName(w.spec.tomcat), w.metadata?.namespace)] : [],
      },
      context,
    );
    return {
      [WebappSources.tomcats]: this.tomcats,
      [WebappSources.lists]: this.lists,
      [WebappSources.pods]: this.pods,
    };
  }

  async reconcile(webapp: Webapp, context: Context<Webapp>): Promise<UpdateControl<Webapp>> {
    try {
      validateWebapp(webapp);
    } catch (error) {
      // only a change of the spec fixes it (and reconciles again): a status, no failure to retry
      if (!(error instanceof InvalidWebappError)) throw error;
      // deployed nowhere, as the status says: out of every list that still holds it
      await this.rewriteStaleLists(webapp.metadata!.namespace!, context);
      return this.status(webapp, { deployedOn: [], ready: false, errorMessage: error.message });
    }
    // a Webapp moved to another Tomcat (spec.tomcat changed) leaves the list of the one it left
    await this.rewriteStaleLists(webapp.metadata!.namespace!, context, webapp.spec!.tomcat);
    const tomcat = context.getSecondaryResource(Tomcat, WebappSources.tomcats);
    if (!tomcat || tomcat.metadata?.deletionTimestamp) {
      return this.status(webapp, {
        deployedOn: [],
        ready: false,
        errorMessage: `Tomcat "${webapp.spec!.tomcat}" does not exist in namespace ${webapp.metadata!.namespace}; the Webapp is deployed once it does`,
      });
    }
    // a Tomcat whose name its Service (or, past 63 characters, its labels) cannot carry never runs:
    // no list is written for it (the API server would refuse the label), and the status says why
    const invalidName = tomcatNameProblem(tomcat);
    if (invalidName) {
      return this.status(webapp, {
        deployedOn: [],
        ready: false,
        errorMessage: `Tomcat "${tomcat.metadata!.name}" cannot serve Webapps: ${invalidName.message}; then set spec.tomcat to the new name`,
      });
    }
    let list;
    try {
      list = await this.writeList(tomcat, context);
    } catch (error) {
      if (!(error instanceof WebappListNameTakenError)) throw error;
      return this.status(webapp, {
        deployedOn: [],
        ready: false,
        errorMessage: error.message,
      }).rescheduleAfter(LIST_NAME_TAKEN_RECHECK_MS);
    }
    const holder = list.conflicts.get(webapp.metadata!.name!);
    if (holder) {
      return this.status(webapp, {
        deployedOn: [],
        ready: false,
        errorMessage: `spec.contextPath ${webapp.spec!.contextPath} is already served by Webapp "${holder}" on Tomcat "${tomcat.metadata!.name}"; choose another path`,
      });
    }
    const deployedOn = (
      this.pods?.byIndex(BY_TOMCAT_INDEX, tomcatKey(tomcat.metadata!.namespace, tomcat.metadata!.name!)) ?? []
    )
      .filter((p) => isPodReady(p))
      .filter((p) =>
        (p.metadata?.annotations?.[CONTEXTS_ANNOTATION] ?? '').split(',').includes(webapp.spec!.contextPath),
      )
      .map((p) => p.metadata!.name!)
      .sort();
    const wanted = tomcat.spec?.replicas ?? 1;
    return this.status(webapp, { deployedOn, ready: wanted > 0 && deployedOn.length >= wanted });
  }

  async cleanup(webapp: Webapp, context: Context<Webapp>): Promise<DeleteControl> {
    const tomcat = context.getSecondaryResource(Tomcat, WebappSources.tomcats);
    // the cache still holds this Webapp (being deleted): the list leaves it out
    if (tomcat && !tomcat.metadata?.deletionTimestamp && !tomcatNameProblem(tomcat)) {
      try {
        await this.writeList(tomcat, context);
      } catch (error) {
        // not deployed anywhere: nothing to take out
        if (!(error instanceof WebappListNameTakenError)) throw error;
      }
    }
    return DeleteControl.defaultDelete();
  }

  updateErrorStatus(
    webapp: Webapp,
    _context: Context<Webapp>,
    error: unknown,
  ): ErrorStatusUpdateControl<Webapp> {
    const cause = causeOf(error);
    const control = ErrorStatusUpdateControl.patchStatus<Webapp>(
      this.statusObject(webapp, {
        deployedOn: webapp.status?.deployedOn ?? [],
        ready: false,
        errorMessage: cause instanceof Error ? cause.message : String(cause),
      }),
    );
    return cause instanceof InvalidWebappError ? control.withNoRetry() : control;
  }

  /**
   * Rewrites the lists of the namespace's Tomcats (but `except`) that do not hold what their Webapps
   * ask for now, e.g. one that still serves a Webapp whose `spec.tomcat` names another Tomcat. Only
   * lists that differ are written.
   */
  private async rewriteStaleLists(
    namespace: string,
    context: Context<Webapp>,
    except?: string,
  ): Promise<void> {
    for (const list of this.lists?.list(namespace) ?? []) {
      const tomcatName = list.metadata?.labels?.[TOMCAT_LABEL];
      if (!tomcatName || tomcatName === except) continue;
      const tomcat = this.tomcats?.get(new ResourceID(tomcatName, namespace));
      if (tomcat && !tomcat.metadata?.deletionTimestamp && !tomcatNameProblem(tomcat))
        await this.writeList(tomcat, context);
    }
  }

  /**
   * Renders the Tomcat's list from the cached Webapps and applies it unless the cached ConfigMap
   * already holds it. A list not in the cache is read first: one the operator did not make is not
   * taken over ({@link WebappListNameTakenError}).
   */
  private async writeList(tomcat: Tomcat, context: Context<Webapp>) {
    const namespace = tomcat.metadata!.namespace!;
    const tomcatName = tomcat.metadata!.name!;
    const members = (this.webapps?.byIndex?.(BY_TOMCAT_INDEX, tomcatKey(namespace, tomcatName)) ?? []).filter(
      (w) => {
        try {
          validateWebapp(w);
          return true;
        } catch {
          return false;
        }
      },
    );
    const list = webappList(members);
    const rendered = renderWebappList(list);
    const name = webappListName(tomcatName);
    const current =
      this.lists?.get(new ResourceID(name, namespace)) ??
      context
        .getSecondaryResources(ResourceTypes.ConfigMap)
        .find((c) => c.metadata?.name === name && c.metadata?.namespace === namespace);
    const owned = current?.metadata?.ownerReferences?.some((r) => r.uid === tomcat.metadata!.uid);
    if (current && owned && (current.data?.[WEBAPP_LIST_KEY] ?? '') === rendered) return list;
    if (!current) {
      // the informer sees the operator's lists only (by label): someone else's ConfigMap of that name?
      const existing = await context.client.get(ResourceTypes.ConfigMap, new ResourceID(name, namespace));
      if (existing && !isOperatorList(existing))
        throw new WebappListNameTakenError(`${namespace}/${name}`, tomcatName);
    }
    await context.client.apply(
      ResourceTypes.ConfigMap,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name,
          namespace,
          labels: {
            [MANAGED_BY_LABEL]: MANAGED_BY_VALUE,
            [ROLE_LABEL]: 'webapps',
            [TOMCAT_LABEL]: tomcatName,
          },
          // owned by the Tomcat: garbage collected with it, and mapped to it by the Tomcat controller
          ownerReferences: [
            {
              apiVersion: Tomcat.apiVersion,
              kind: Tomcat.kind,
              name: tomcatName,
              uid: tomcat.metadata!.uid!,
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        data: { [WEBAPP_LIST_KEY]: rendered },
      },
      { fieldManager: WEBAPP_FIELD_MANAGER, force: true },
    );
    return list;
  }

  private status(webapp: Webapp, status: Omit<WebappStatus, 'observedGeneration'>): UpdateControl<Webapp> {
    const next = { ...status, observedGeneration: webapp.metadata?.generation };
    if (JSON.stringify(normalise(webapp.status)) === JSON.stringify(normalise(next)))
      return UpdateControl.noUpdate<Webapp>();
    return UpdateControl.patchStatus<Webapp>(this.statusObject(webapp, status));
  }

  private statusObject(webapp: Webapp, status: Omit<WebappStatus, 'observedGeneration'>): Webapp {
    return {
      apiVersion: Webapp.apiVersion,
      kind: Webapp.kind,
      metadata: { name: webapp.metadata!.name!, namespace: webapp.metadata!.namespace! },
      status: { ...status, observedGeneration: webapp.metadata?.generation },
    };
  }
}

function normalise(status: WebappStatus | undefined): unknown[] {
  return [status?.deployedOn ?? [], status?.ready ?? false, status?.observedGeneration, status?.errorMessage];
}

// the framework wraps what the reconciler threw (ReconcileError): the first InvalidWebappError, else the innermost cause
function causeOf(error: unknown): unknown {
  let e: unknown = error;
  for (let depth = 0; depth < 10 && e instanceof Error; depth++) {
    if (e instanceof InvalidWebappError) return e;
    if (e.cause === undefined) return e;
    e = e.cause;
  }
  return e;
}
