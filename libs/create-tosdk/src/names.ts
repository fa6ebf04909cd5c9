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
  return { kind: k, file: kebab(k), variable: camel(k), plural: `${k.toLowerCase()}s` };
}
