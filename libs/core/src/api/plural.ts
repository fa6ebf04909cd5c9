/** Nouns whose plural is the word itself. */
const UNCOUNTABLE = new Set([
  'equipment',
  'fish',
  'information',
  'money',
  'rice',
  'series',
  'sheep',
  'species',
  'news',
]);

/** Whole words with an irregular plural. */
const IRREGULAR = new Map([
  ['person', 'people'],
  ['woman', 'women'],
  ['man', 'men'],
  ['child', 'children'],
  ['ox', 'oxen'],
]);

/** Endings and their plurals, the first that matches applies. */
const ENDINGS: ReadonlyArray<readonly [RegExp, string]> = [
  [/([^aeiouy]|qu)y$/, '$1ies'], // policy → policies (gateway → gateways)
  [/(x|ch|ss|sh)$/, '$1es'], // ingress → ingresses, box → boxes, index → indexes
  [/(bus|alias|status|dns|prometheus)$/, '$1es'],
  [/(quiz)$/, '$1zes'],
  [/(cris|ax|test)is$/, '$1es'],
  [/([ml])ouse$/, '$1ice'],
  [/([lr])f$/, '$1ves'],
  [/([^f])fe$/, '$1ves'],
  [/([ti])um$/, '$1a'],
];

/**
 * The plural of a kind as the URL and the CRD name use it when none is given: the lower-cased kind
 * made plural by English rules, as fabric8's `Pluralize` (JOSDK's default) does: `WebPage` →
 * `webpages`, `NetworkPolicy` → `networkpolicies`, `Ingress` → `ingresses`, `Prometheus` →
 * `prometheuses`, `Endpoints` → `endpoints`. One difference, as kubebuilder's: a final `o` takes
 * an `s` (`Gizmo` → `gizmos`, where fabric8 writes `gizmoes`). Give `plural` to
 * {@link defineResource} for anything else.
 */
export function defaultPlural(kind: string): string {
  const word = kind.toLowerCase();
  if (UNCOUNTABLE.has(word)) return word;
  const irregular = IRREGULAR.get(word);
  if (irregular) return irregular;
  for (const [ending, plural] of ENDINGS) if (ending.test(word)) return word.replace(ending, plural);
  // a word that already looks plural (`Endpoints`) stays as it is
  return word.endsWith('s') && !word.endsWith('ss') ? word : `${word}s`;
}
