/**
 * The syntax tree of the CEL subset this server evaluates.
 */

/** One CEL expression node. */
export type Expr =
  | { t: 'lit'; value: unknown }
  | { t: 'ident'; name: string }
  | { t: 'select'; operand: Expr; field: string }
  | { t: 'index'; operand: Expr; index: Expr }
  | { t: 'call'; fn: string; target?: Expr; args: Expr[] }
  | { t: 'list'; items: Expr[] }
  | { t: 'map'; entries: [Expr, Expr][] }
  | { t: 'unary'; op: '!' | '-'; operand: Expr }
  | { t: 'binary'; op: string; left: Expr; right: Expr }
  | { t: 'cond'; test: Expr; then: Expr; else: Expr }
  | { t: 'has'; operand: Expr; field: string }
  | {
      t: 'comprehension';
      macro: 'all' | 'exists' | 'exists_one' | 'map' | 'filter';
      target: Expr;
      variable: string;
      body: Expr;
      transform?: Expr;
    };

/** Whether an expression refers to `oldSelf` (a transition rule). */
export function usesOldSelf(e: Expr): boolean {
  switch (e.t) {
    case 'lit':
      return false;
    case 'ident':
      return e.name === 'oldSelf';
    case 'select':
    case 'has':
      return usesOldSelf(e.operand);
    case 'index':
      return usesOldSelf(e.operand) || usesOldSelf(e.index);
    case 'call':
      return (e.target ? usesOldSelf(e.target) : false) || e.args.some(usesOldSelf);
    case 'list':
      return e.items.some(usesOldSelf);
    case 'map':
      return e.entries.some(([k, v]) => usesOldSelf(k) || usesOldSelf(v));
    case 'unary':
      return usesOldSelf(e.operand);
    case 'binary':
      return usesOldSelf(e.left) || usesOldSelf(e.right);
    case 'cond':
      return usesOldSelf(e.test) || usesOldSelf(e.then) || usesOldSelf(e.else);
    case 'comprehension':
      return usesOldSelf(e.target) || usesOldSelf(e.body) || (e.transform ? usesOldSelf(e.transform) : false);
  }
}

const GLOBAL_FUNCTIONS = new Set(['size', 'int', 'uint', 'double', 'string', 'bool', 'duration']);
const MEMBER_FUNCTIONS = new Set([
  'size',
  'startsWith',
  'endsWith',
  'contains',
  'matches',
  'lowerAscii',
  'upperAscii',
  'trim',
  'split',
  'charAt',
  'indexOf',
  'lastIndexOf',
  'replace',
  'substring',
  'join',
  'sum',
  'min',
  'max',
  'isSorted',
  'hasValue',
  'value',
  'orValue',
]);

/** The first function the evaluator does not implement, written `name()`, or undefined. */
export function unsupportedFunction(e: Expr): string | undefined {
  const kids: Expr[] = [];
  switch (e.t) {
    case 'call':
      if (!(e.target ? MEMBER_FUNCTIONS : GLOBAL_FUNCTIONS).has(e.fn)) return `${e.fn}()`;
      if (e.target) kids.push(e.target);
      kids.push(...e.args);
      break;
    case 'select':
    case 'has':
    case 'unary':
      kids.push(e.operand);
      break;
    case 'index':
      kids.push(e.operand, e.index);
      break;
    case 'list':
      kids.push(...e.items);
      break;
    case 'map':
      for (const [k, v] of e.entries) kids.push(k, v);
      break;
    case 'binary':
      kids.push(e.left, e.right);
      break;
    case 'cond':
      kids.push(e.test, e.then, e.else);
      break;
    case 'comprehension':
      kids.push(e.target, e.body, ...(e.transform ? [e.transform] : []));
      break;
    default:
      break;
  }
  for (const k of kids) {
    const found = unsupportedFunction(k);
    if (found) return found;
  }
  return undefined;
}
