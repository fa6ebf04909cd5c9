/**
 * The CEL environment of CRD validation rules: @bufbuild/cel's standard library, the strings
 * extension and Kubernetes' libraries on top (lists, sets, regex, URLs, IP/CIDR, quantity, format,
 * optionals), as kube-apiserver declares them for `x-kubernetes-validations`.
 */
import { celEnv } from '@bufbuild/cel';
import type { CelEnv, CelFunc } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { formatLibrary } from './lib-format.js';
import { listLibrary } from './lib-lists.js';
import { netLibrary } from './lib-net.js';
import { optionalLibrary, optionalSyntaxLibrary } from './lib-optional.js';
import { quantityLibrary } from './lib-quantity.js';

let functions: CelFunc[] | undefined;

/** Every function the environment adds to CEL's standard library. */
export function kubernetesFunctions(): CelFunc[] {
  functions ??= [
    ...strings,
    ...listLibrary(),
    ...netLibrary(),
    ...quantityLibrary(),
    ...optionalLibrary(),
    ...optionalSyntaxLibrary(),
    ...formatLibrary(),
  ];
  return functions;
}

let shared: CelEnv | undefined;

/**
 * The environment rules run in. `options` (a protobuf registry, a container namespace) are for the
 * CEL conformance tests; rules use the shared default.
 */
export function kubernetesCelEnv(options?: Omit<NonNullable<Parameters<typeof celEnv>[0]>, 'funcs'>): CelEnv {
  if (!options) return (shared ??= celEnv({ funcs: kubernetesFunctions() }));
  return celEnv({ ...options, funcs: kubernetesFunctions() });
}
