function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A reconciler provider is request-scoped (or depends on one). */
export function requestScopedReconcilerMessage(name: string): string {
  return `reconciler ${name} is request-scoped or transient (or depends on such a provider); reconcilers must be singletons: remove the scope option from the provider and from its dependencies`;
}

/** A `@ConfigurationOverrider` or `@OperatorMetricsSink` provider is request-scoped (it would never be called). */
export function requestScopedProviderMessage(decorator: string, name: string): string {
  return `${decorator} ${name} is request-scoped (or depends on a request-scoped provider), so the operator, which runs outside any request, cannot call it; make it a singleton: remove the scope option from the provider and from its dependencies`;
}

/** A `@ConfigurationOverrider` or `@OperatorMetricsSink` provider is transient (Nest constructs one per consumer, none for the operator). */
export function transientProviderMessage(decorator: string, name: string): string {
  return `${decorator} ${name} is transient: Nest constructs a transient provider for each provider that injects it and none for the operator, which would call an instance whose constructor never ran (its injected dependencies undefined); make it a singleton: remove scope: Scope.TRANSIENT`;
}

/** Reconcilers instantiated after registration (a module loaded with LazyModuleLoader). */
export function lateReconcilersMessage(names: string[]): string {
  const list = names.join(', ');
  return `reconciler${names.length > 1 ? 's' : ''} ${list} ${names.length > 1 ? 'were' : 'was'} instantiated after the operator registered its reconcilers (a module loaded with LazyModuleLoader?), so ${names.length > 1 ? 'they do' : 'it does'} not run: import the module of ${list} statically (in the imports of the application's modules)`;
}

/** A provider marked with @Reconciler has no reconcile method. */
export function notAReconcilerMessage(name: string): string {
  return `provider ${name} is marked with @Reconciler but has no reconcile(resource, context) method`;
}

/** One reconciler class is a provider of two modules (two instances, two controllers). */
export function duplicateReconcilerMessage(name: string, first: string, second: string): string {
  return `reconciler ${name} is a provider of both ${first} and ${second}, which makes two instances; list it in the providers of one module and export it from there`;
}

/** OperatorModule.forRoot/forRootAsync imported more than once (each call makes a module of its own). */
export function secondOperatorModuleMessage(count: number, importers: readonly string[]): string {
  return `OperatorModule is imported ${count} times (by ${importers.join(', ') || 'unknown modules'}; each forRoot()/forRootAsync() call makes a module of its own): each runs an operator with every @Reconciler, so each resource would be reconciled ${count} times; import OperatorModule.forRoot() or forRootAsync() once, in the root module, and leave it out of feature modules (it is global; with isGlobal: false, import that one module object, or a module exporting it, where the Operator is injected) (in a test of an app module that has it, leave out createOperatorTestingModule's operator option)`;
}

/** The app has no reconciler. */
export function noReconcilersMessage(): string {
  return 'no @Reconciler providers found: the operator starts with no controllers; mark a provider with @Reconciler({ resource: MyKind }) and add it to the providers of a module';
}

/** A @Reconciler decorator's options are missing or unusable. */
export function invalidReconcilerOptionsMessage(name: string, problem: string): string {
  return `@Reconciler on ${name}: ${problem}; give the primary kind as resource, e.g. @Reconciler({ resource: defineResource<MyKind>({ group, version, kind }) }) or @Reconciler({ resource: ResourceTypes.ConfigMap })`;
}

/** Two controllers reconcile one kind (each gets every event; they may fight over the objects). */
export function sharedKindMessage(kind: string, names: readonly string[]): string {
  return `controllers ${names.join(' and ')} both reconcile ${kind}: each gets every event of it and they may overwrite each other's changes; if that is not intended, remove one, or give them disjoint namespaces or label selectors`;
}

/** Codes of errors that wrap the API server's answer: the answer's status says what to fix. */
const WRAPPING_CODES = new Set(['EventSourceStart', 'InformerStart', 'KubernetesApiError']);

/** What to fix for an HTTP status of the API server under a wrapping error. */
const STATUS_HINTS: Record<number, string> = {
  401: 'check the credentials in the KubeConfig (the API server does not accept them)',
  403: 'grant the operator RBAC permissions to list and watch the resource',
  404: 'apply the CustomResourceDefinition of the resource (with its version served) before starting the app',
};

/** The HTTP status of the first error in the cause chain that has one. */
function statusInCauses(error: unknown): number | undefined {
  const seen = new Set<unknown>();
  for (let e: unknown = error; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    const status = (e as { status?: unknown }).status;
    if (typeof status === 'number') return status;
  }
  return undefined;
}

/** Start-up failed: what to fix, by the cause's code (for a wrapped API answer, by its status). */
export function startFailedMessage(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  const hint: Record<string, string> = {
    MissingCustomResourceDefinition: 'apply the CustomResourceDefinition before starting the app',
    KubernetesApiError: 'check the operator RBAC permissions and that the resource is served',
    InformerStart:
      'check that the API server is reachable and the operator may list and watch the resource (RBAC)',
    LeaderElectionPermission:
      'grant the operator get/create/update on coordination.k8s.io leases in the lease namespace',
    LeaderElectionPermissionCheck:
      'let the operator create selfsubjectaccessreviews (the system:basic-user ClusterRole) so it can check its lease permissions',
    EventSourceStart:
      'check that the API server is reachable and the operator may list and watch the resource (RBAC)',
    KubernetesTransport: 'check the API server address in the KubeConfig and that the server is running',
  };
  // an informer that got a 404 is no reachability or RBAC problem: its CRD is missing
  const status = typeof code === 'string' && WRAPPING_CODES.has(code) ? statusInCauses(error) : undefined;
  const fix =
    (status !== undefined && STATUS_HINTS[status]) ||
    (typeof code === 'string' && hint[code]) ||
    'check the API server address, the credentials and the operator RBAC permissions';
  return `the operator failed to start: ${errorText(error)}. To fix: ${fix}`;
}

/** A registered controller handle was used before the reconciler was registered. */
export function controllerNotRegisteredMessage(name: string): string {
  return `the controller of ${name} is not registered yet: controllers register in onModuleInit; use the handle from onApplicationBootstrap on, and make sure ${name} is a provider marked with @Reconciler`;
}

/** No KubeConfig found. */
export function kubeConfigNotFoundMessage(): string {
  return 'no KubeConfig found: set KUBECONFIG, create ~/.kube/config, run in a cluster, or pass kubeConfig or client to OperatorModule.forRoot';
}
