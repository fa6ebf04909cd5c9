/** `my-operator` → `MyOperator`. */
export const pascal = (s: string) =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');

/** `MyThing` → `my-thing`. */
export const kebab = (s: string) =>
  s
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .toLowerCase()
    .replace(/^-|-$/g, '');

/** `MyThing` → `myThing`. */
export const camel = (s: string) => {
  const p = pascal(s);
  return p[0].toLowerCase() + p.slice(1);
};

// The plural rules of @tosdk/core's `defaultPlural` (this package depends on nothing, so they are
// repeated here; a test of @tosdk/cli checks that both give the same plurals).
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
const IRREGULAR = new Map([
  ['person', 'people'],
  ['woman', 'women'],
  ['man', 'men'],
  ['child', 'children'],
  ['ox', 'oxen'],
]);
const ENDINGS: ReadonlyArray<readonly [RegExp, string]> = [
  [/([^aeiouy]|qu)y$/, '$1ies'],
  [/(x|ch|ss|sh)$/, '$1es'],
  [/(bus|alias|status|dns|prometheus)$/, '$1es'],
  [/(quiz)$/, '$1zes'],
  [/(cris|ax|test)is$/, '$1es'],
  [/([ml])ouse$/, '$1ice'],
  [/([lr])f$/, '$1ves'],
  [/([^f])fe$/, '$1ves'],
  [/([ti])um$/, '$1a'],
];

/** `NetworkPolicy` → `networkpolicies`: the plural `defineResource` gives a kind (see @tosdk/core's `defaultPlural`). */
export function pluralOf(kind: string): string {
  const word = kind.toLowerCase();
  if (UNCOUNTABLE.has(word)) return word;
  const irregular = IRREGULAR.get(word);
  if (irregular) return irregular;
  for (const [ending, plural] of ENDINGS) if (ending.test(word)) return word.replace(ending, plural);
  return word.endsWith('s') && !word.endsWith('ss') ? word : `${word}s`;
}

/** The names a kind appears under in generated code and manifests. */
export interface KindNames {
  /** `Greeting` */
  kind: string;
  /** `greeting` (file names) */
  file: string;
  /** `greeting` (variables) */
  variable: string;
  /** `greetings` */
  plural: string;
}

/** The names of a kind. */
export function kindNames(kind: string): KindNames {
  const k = pascal(kind);
  return { kind: k, file: kebab(k), variable: camel(k), plural: pluralOf(k) };
}
