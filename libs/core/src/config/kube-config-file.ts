import { createRequire } from 'node:module';
import { KubeConfigError } from './kube-config-error.js';

// Reading one kubeconfig file: JSON or YAML, checked to be a kubeconfig. Internal.

const { readFileSync } = process.getBuiltinModule('node:fs');

/** One kubeconfig file as read: its text, its path and the parsed document. */
export interface KubeConfigDocument {
  text: string;
  file: string;
  doc: Record<string, unknown>;
}

/**
 * Parses a kubeconfig file. A file written as JSON (JSON is YAML; the in-memory API server and many
 * generators write it) is read by `JSON.parse`; anything else by the YAML parser (eemeli/yaml),
 * loaded on the first such file. An operator in a pod reads its in-cluster configuration, and one
 * given a JSON kubeconfig reads it, without loading the YAML parser (~10 MB of RSS).
 */
function parseYaml(text: string): unknown {
  if (text.trimStart().startsWith('{')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // YAML's flow style is wider than JSON (unquoted keys, comments): the YAML parser decides
    }
  }
  const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yaml.parse(text);
}

/** Reads one kubeconfig file; `via` says how it was found (for messages). */
export function readKubeConfigFile(file: string, via: string): KubeConfigDocument {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new KubeConfigError(
      `cannot read the kubeconfig ${file} (from ${via}): ${(cause as Error).message}`,
      file,
      { cause },
    );
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (cause) {
    throw notAKubeConfig(file, via, `it is not YAML (${(cause as Error).message.split('\n')[0]})`, cause);
  }
  // as client-go: an empty file (or one of comments only) is an empty configuration, merged as such
  if (doc === null || doc === undefined) return { text, file, doc: {} };
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw notAKubeConfig(file, via, 'it is not a YAML mapping');
  }
  const d = doc as Record<string, unknown>;
  if (d.kind !== undefined && d.kind !== 'Config')
    throw notAKubeConfig(file, via, `its kind is ${JSON.stringify(d.kind)}, not Config`);
  for (const key of ['clusters', 'users', 'contexts']) {
    if (d[key] !== undefined && d[key] !== null && !Array.isArray(d[key]))
      throw notAKubeConfig(file, via, `its ${key} is not a list`);
  }
  // a file of a KUBECONFIG list may hold only some parts (only users, only current-context), but
  // one with no part of a kubeconfig at all is most likely another file named by mistake
  if (!KUBECONFIG_KEYS.some((key) => key in d)) {
    throw notAKubeConfig(file, via, `it has none of ${KUBECONFIG_KEYS.join(', ')}`);
  }
  return { text, file, doc: d };
}

/** The top-level fields of a kubeconfig. */
const KUBECONFIG_KEYS = [
  'apiVersion',
  'kind',
  'clusters',
  'users',
  'contexts',
  'current-context',
  'preferences',
  'extensions',
];

/** Whether a parsed file defines a cluster, user, context or current context (client-go's `IsConfigEmpty`, negated). */
export function definesSomething({ doc }: { doc: Record<string, unknown> }): boolean {
  const some = (list: unknown) => Array.isArray(list) && list.length > 0;
  return (
    some(doc.clusters) ||
    some(doc.users) ||
    some(doc.contexts) ||
    (typeof doc['current-context'] === 'string' && doc['current-context'] !== '')
  );
}

function notAKubeConfig(file: string, via: string, why: string, cause?: unknown): KubeConfigError {
  return new KubeConfigError(
    `${file} (from ${via}) is not a kubeconfig: ${why}; point ${via === 'KUBECONFIG' ? 'KUBECONFIG' : 'it'} at a kubeconfig file (e.g. one written by \`kubectl config view --raw\`)`,
    file,
    { cause },
  );
}
