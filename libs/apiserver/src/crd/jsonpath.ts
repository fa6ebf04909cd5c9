/**
 * A small JSONPath evaluator for printer columns, in the dialect of `kubectl get -o jsonpath` (without
 * templates): `.spec.replicas`, `.items[0]`, `.items[-1]`, `.items[*].name`, `['a.b']`, `..name`, and
 * filters `[?(@.type=="Ready")]` with `==`, `!=`, `<`, `<=`, `>`, `>=` or a bare existence test.
 * An optional `{...}` wrapper is accepted.
 */
import { CrdError } from './errors.js';
import { isObject, jsonEqual } from './json-util.js';

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'wildcard' }
  | { kind: 'recursive'; name: string }
  | { kind: 'filter'; path: string[]; op?: string; value?: unknown };

/** A parsed JSONPath, reusable across objects. */
export class JsonPath {
  private constructor(
    /** The path as written. */
    readonly source: string,
    private readonly steps: readonly Step[],
  ) {}

  /**
   * Parses a path.
   * @throws CrdError with code `JSONPATH_INVALID` when the path cannot be parsed.
   */
  static parse(source: string): JsonPath {
    let text = source.trim();
    if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1).trim();
    return new JsonPath(source, new Parser(text, source).parse());
  }

  /** All values the path selects in `root`, in document order (empty when nothing matches). */
  evaluate(root: unknown): unknown[] {
    let current: unknown[] = [root];
    for (const step of this.steps) {
      const next: unknown[] = [];
      for (const node of current) apply(step, node, next);
      current = next;
    }
    return current;
  }

  /** The first value the path selects, or undefined. */
  first(root: unknown): unknown {
    return this.evaluate(root)[0];
  }
}

function apply(step: Step, node: unknown, out: unknown[]): void {
  switch (step.kind) {
    case 'field':
      if (isObject(node) && step.name in node) out.push(node[step.name]);
      return;
    case 'index':
      if (Array.isArray(node)) {
        const i = step.index < 0 ? node.length + step.index : step.index;
        if (i >= 0 && i < node.length) out.push(node[i]);
      }
      return;
    case 'wildcard':
      if (Array.isArray(node)) out.push(...(node as unknown[]));
      else if (isObject(node)) out.push(...Object.values(node));
      return;
    case 'recursive':
      collect(node, step.name, out);
      return;
    case 'filter':
      if (!Array.isArray(node)) return;
      for (const item of node as unknown[]) if (matches(step, item)) out.push(item);
      return;
  }
}

function collect(node: unknown, name: string, out: unknown[]): void {
  if (isObject(node)) {
    if (name in node) out.push(node[name]);
    for (const v of Object.values(node)) collect(v, name, out);
  } else if (Array.isArray(node)) {
    for (const v of node as unknown[]) collect(v, name, out);
  }
}

function matches(step: Extract<Step, { kind: 'filter' }>, item: unknown): boolean {
  let cur: unknown = item;
  for (const f of step.path) {
    if (!isObject(cur) || !(f in cur)) return false;
    cur = cur[f];
  }
  if (step.op === undefined) return true;
  const v = step.value;
  switch (step.op) {
    case '==':
      return jsonEqual(cur, v);
    case '!=':
      return !jsonEqual(cur, v);
    default: {
      if (typeof cur !== typeof v || (typeof cur !== 'number' && typeof cur !== 'string')) return false;
      const a = cur;
      const b = v as number | string;
      if (step.op === '<') return a < b;
      if (step.op === '<=') return a <= b;
      if (step.op === '>') return a > b;
      return a >= b;
    }
  }
}

class Parser {
  private pos = 0;

  constructor(
    private readonly text: string,
    private readonly source: string,
  ) {}

  parse(): Step[] {
    const steps: Step[] = [];
    if (this.text === '' || this.text === '.' || this.text === '$' || this.text === '@') return steps;
    if (this.peek() === '$' || this.peek() === '@') this.pos++;
    while (this.pos < this.text.length) {
      const c = this.peek();
      if (c === '.') {
        if (this.text[this.pos + 1] === '.') {
          this.pos += 2;
          steps.push({ kind: 'recursive', name: this.identifier() });
        } else {
          this.pos++;
          if (this.pos >= this.text.length) break;
          if (this.peek() === '*') {
            this.pos++;
            steps.push({ kind: 'wildcard' });
          } else if (this.peek() !== '[') steps.push({ kind: 'field', name: this.identifier() });
        }
      } else if (c === '[') {
        steps.push(this.bracket());
      } else if (steps.length === 0) {
        steps.push({ kind: 'field', name: this.identifier() });
      } else {
        this.fail(`unexpected ${JSON.stringify(c)}`);
      }
    }
    return steps;
  }

  private bracket(): Step {
    this.pos++;
    this.skipSpaces();
    const c = this.peek();
    let step: Step;
    if (c === '*') {
      this.pos++;
      step = { kind: 'wildcard' };
    } else if (c === "'" || c === '"') {
      step = { kind: 'field', name: this.quoted() };
    } else if (c === '?') {
      step = this.filter();
    } else {
      const m = /^-?\d+/.exec(this.text.slice(this.pos));
      if (!m) this.fail('expected an index, a quoted name, * or a filter');
      this.pos += m[0].length;
      step = { kind: 'index', index: Number(m[0]) };
    }
    this.skipSpaces();
    this.expect(']');
    return step;
  }

  private filter(): Step {
    this.pos++;
    this.expect('(');
    this.skipSpaces();
    this.expect('@');
    const path: string[] = [];
    while (this.peek() === '.' || this.peek() === '[') {
      if (this.peek() === '.') {
        this.pos++;
        path.push(this.identifier());
      } else {
        this.pos++;
        path.push(this.quoted());
        this.expect(']');
      }
    }
    this.skipSpaces();
    const op = /^(==|!=|<=|>=|<|>)/.exec(this.text.slice(this.pos))?.[0];
    let step: Step = { kind: 'filter', path };
    if (op) {
      this.pos += op.length;
      this.skipSpaces();
      step = { kind: 'filter', path, op, value: this.literal() };
    }
    this.skipSpaces();
    this.expect(')');
    return step;
  }

  private literal(): unknown {
    const c = this.peek();
    if (c === "'" || c === '"') return this.quoted();
    const m = /^(-?\d+(\.\d+)?|true|false|null)/.exec(this.text.slice(this.pos));
    if (!m) return this.fail('expected a literal');
    this.pos += m[0].length;
    return JSON.parse(m[0]) as unknown;
  }

  private quoted(): string {
    const q = this.peek();
    this.pos++;
    let out = '';
    while (this.pos < this.text.length && this.peek() !== q) {
      if (this.peek() === '\\' && this.pos + 1 < this.text.length) this.pos++;
      out += this.peek();
      this.pos++;
    }
    this.expect(q);
    return out;
  }

  private identifier(): string {
    // Field names end at a delimiter; `\.` keeps a dot inside a name (`app\.kubernetes\.io/name`).
    const m = /^(?:\\.|[^.[\]()\s'"=!<>\\])+/.exec(this.text.slice(this.pos));
    if (!m) return this.fail('expected a field name');
    this.pos += m[0].length;
    return m[0].replace(/\\(.)/g, '$1');
  }

  private skipSpaces(): void {
    while (this.peek() === ' ') this.pos++;
  }

  private peek(): string {
    return this.text[this.pos] ?? '';
  }

  private expect(c: string): void {
    if (this.peek() !== c) this.fail(`expected ${JSON.stringify(c)}`);
    this.pos++;
  }

  private fail(why: string): never {
    throw new CrdError(
      'JSONPATH_INVALID',
      `invalid JSONPath ${JSON.stringify(this.source)} at ${this.pos}: ${why}`,
    );
  }
}
