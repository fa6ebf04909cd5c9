import { Document, isScalar, visit } from 'yaml';

/**
 * A number as Go's `strconv.ParseInt(s, 0, 64)` or `ParseFloat` reads it, which go-yaml v2 (the
 * parser of kubectl and Helm, through sigs.k8s.io/yaml) tries on every plain scalar: prefixes
 * `0b`, `0o`, `0x` in either case, and `_` between digits. YAML 1.1 knows only some of these.
 */
const GO_NUMBER =
  /^[-+]?(?:0[bB][01_]+|0[oO][0-7_]+|0[xX][0-9a-fA-F_]+(?:\.[0-9a-fA-F_]*)?(?:[pP][-+]?\d+)?|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][-+]?\d+)?)$/;

/**
 * YAML text of `value` as kubectl and Helm read it back: every string they would take for another
 * type is quoted. They parse with go-yaml v2, which follows YAML 1.1 (`y`, `n`, `yes`, `no`, `on`,
 * `off` in any of their cases are booleans; `0755` is octal) and Go's number syntax, while the
 * `yaml` library writes for YAML 1.2, where those are plain strings: written bare, a CRD property
 * named `n` reached the API server as `false`. Written with the library's YAML 1.1 rules, plus the
 * quoting of Go's number forms YAML 1.1 lacks (`0o17`). No line folding, no anchors.
 */
export function yamlText(value: unknown): string {
  const doc = new Document(value, { version: '1.1', aliasDuplicateObjects: false });
  visit(doc, {
    Scalar(_key, node) {
      if (isScalar(node) && typeof node.value === 'string' && GO_NUMBER.test(node.value))
        node.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString({ lineWidth: 0 });
}
