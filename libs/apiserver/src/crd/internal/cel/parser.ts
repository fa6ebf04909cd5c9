/**
 * A parser for the CEL subset: literals (int, uint, double, string, bool, null, lists, maps), `self`,
 * `oldSelf` and comprehension variables, field selection, indexing, `!`, unary `-`, `* / %`, `+ -`,
 * comparisons, `in`, `&&`, `||`, `?:`, `has()`, the macros `all`, `exists`, `exists_one`, `map`,
 * `filter`, and function calls (checked when evaluated).
 */
import type { Expr } from './ast.js';

/** A rule outside the subset or malformed. */
export class CelSyntaxError extends Error {
  readonly code = 'CEL_SYNTAX';
}

type Tok =
  | { k: 'num'; v: number }
  | { k: 'str'; v: string }
  | { k: 'id'; v: string }
  | { k: 'op'; v: string }
  | { k: 'end' };

const OPS = [
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '!',
  '?',
  ':',
  '.',
  ',',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
];
const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

function lex(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] ?? '';
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^(\d+\.\d*(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|0x[0-9a-fA-F]+|\d+)[uU]?/.exec(src.slice(i));
    if (num) {
      out.push({ k: 'num', v: Number(num[1]) });
      i += num[0].length;
      continue;
    }
    const raw = /^[rR]/.test(c) && /['"]/.test(src[i + 1] ?? '');
    if (c === '"' || c === "'" || raw) {
      if (raw) i++;
      const q = src[i] ?? '';
      const triple = src.startsWith(q.repeat(3), i);
      const close = triple ? q.repeat(3) : q;
      i += close.length;
      let s = '';
      while (i < src.length && !src.startsWith(close, i)) {
        let ch = src[i] ?? '';
        if (ch === '\\' && !raw) {
          i++;
          const e = src[i] ?? '';
          const map: Record<string, string> = {
            n: '\n',
            t: '\t',
            r: '\r',
            '\\': '\\',
            '"': '"',
            "'": "'",
            '`': '`',
          };
          if (e in map) ch = map[e] ?? e;
          else if (e === 'u') {
            ch = String.fromCharCode(parseInt(src.slice(i + 1, i + 5), 16));
            i += 4;
          } else throw new CelSyntaxError(`unsupported escape \\${e}`);
        }
        s += ch;
        i++;
      }
      if (i >= src.length) throw new CelSyntaxError('unterminated string');
      i += close.length;
      out.push({ k: 'str', v: s });
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (id) {
      out.push({ k: 'id', v: id[0] });
      i += id[0].length;
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) throw new CelSyntaxError(`unexpected ${JSON.stringify(c)}`);
    out.push({ k: 'op', v: op });
    i += op.length;
  }
  out.push({ k: 'end' });
  return out;
}

/** Parses a CEL rule. @throws CelSyntaxError */
export function parseCel(src: string): Expr {
  const toks = lex(src);
  let p = 0;
  const peek = (): Tok => toks[p] ?? { k: 'end' };
  const isOp = (v: string): boolean => {
    const t = peek();
    return t.k === 'op' && t.v === v;
  };
  const eat = (v: string): boolean => {
    if (isOp(v)) {
      p++;
      return true;
    }
    return false;
  };
  const expect = (v: string): void => {
    if (!eat(v)) throw new CelSyntaxError(`expected ${v}`);
  };

  const expr = (): Expr => {
    const test = or();
    if (!eat('?')) return test;
    const then = or();
    expect(':');
    return { t: 'cond', test, then, else: expr() };
  };
  const or = (): Expr => {
    let l = and();
    while (eat('||')) l = { t: 'binary', op: '||', left: l, right: and() };
    return l;
  };
  const and = (): Expr => {
    let l = rel();
    while (eat('&&')) l = { t: 'binary', op: '&&', left: l, right: rel() };
    return l;
  };
  const rel = (): Expr => {
    let l = add();
    for (;;) {
      const t = peek();
      if (t.k === 'op' && ['==', '!=', '<', '<=', '>', '>='].includes(t.v)) {
        p++;
        l = { t: 'binary', op: t.v, left: l, right: add() };
      } else if (t.k === 'id' && t.v === 'in') {
        p++;
        l = { t: 'binary', op: 'in', left: l, right: add() };
      } else return l;
    }
  };
  const add = (): Expr => {
    let l = mul();
    for (;;) {
      const t = peek();
      if (t.k === 'op' && (t.v === '+' || t.v === '-')) {
        p++;
        l = { t: 'binary', op: t.v, left: l, right: mul() };
      } else return l;
    }
  };
  const mul = (): Expr => {
    let l = unary();
    for (;;) {
      const t = peek();
      if (t.k === 'op' && (t.v === '*' || t.v === '/' || t.v === '%')) {
        p++;
        l = { t: 'binary', op: t.v, left: l, right: unary() };
      } else return l;
    }
  };
  const unary = (): Expr => {
    if (eat('!')) return { t: 'unary', op: '!', operand: unary() };
    if (eat('-')) {
      const t = peek();
      if (t.k === 'num') {
        p++;
        return member({ t: 'lit', value: -t.v });
      }
      return { t: 'unary', op: '-', operand: unary() };
    }
    return member(primary());
  };
  const args = (): Expr[] => {
    const list: Expr[] = [];
    if (eat(')')) return list;
    do list.push(expr());
    while (eat(','));
    expect(')');
    return list;
  };
  const member = (start: Expr): Expr => {
    let e = start;
    for (;;) {
      if (eat('.')) {
        const t = peek();
        if (t.k !== 'id') throw new CelSyntaxError('expected a field name');
        p++;
        if (eat('(')) {
          if (MACROS.has(t.v)) {
            const v = peek();
            if (v.k !== 'id') throw new CelSyntaxError(`${t.v}() needs a variable`);
            p++;
            expect(',');
            const body = expr();
            let transform: Expr | undefined;
            if (t.v === 'map' && eat(',')) transform = expr();
            expect(')');
            const macro = t.v as 'all' | 'exists' | 'exists_one' | 'map' | 'filter';
            e = transform
              ? { t: 'comprehension', macro, target: e, variable: v.v, body, transform }
              : { t: 'comprehension', macro, target: e, variable: v.v, body };
          } else e = { t: 'call', fn: t.v, target: e, args: args() };
        } else e = { t: 'select', operand: e, field: t.v };
      } else if (eat('[')) {
        const index = expr();
        expect(']');
        e = { t: 'index', operand: e, index };
      } else return e;
    }
  };
  const primary = (): Expr => {
    const t = peek();
    p++;
    if (t.k === 'num') return { t: 'lit', value: t.v };
    if (t.k === 'str') return { t: 'lit', value: t.v };
    if (t.k === 'op' && t.v === '(') {
      const e = expr();
      expect(')');
      return e;
    }
    if (t.k === 'op' && t.v === '[') {
      const items: Expr[] = [];
      if (!eat(']')) {
        do items.push(expr());
        while (eat(','));
        expect(']');
      }
      return { t: 'list', items };
    }
    if (t.k === 'op' && t.v === '{') {
      const entries: [Expr, Expr][] = [];
      if (!eat('}')) {
        do {
          const k = expr();
          expect(':');
          entries.push([k, expr()]);
        } while (eat(','));
        expect('}');
      }
      return { t: 'map', entries };
    }
    if (t.k === 'id') {
      if (t.v === 'true' || t.v === 'false') return { t: 'lit', value: t.v === 'true' };
      if (t.v === 'null') return { t: 'lit', value: null };
      if (eat('(')) {
        if (t.v === 'has') {
          const arg = expr();
          expect(')');
          if (arg.t !== 'select') throw new CelSyntaxError('has() needs a field selection');
          return { t: 'has', operand: arg.operand, field: arg.field };
        }
        return { t: 'call', fn: t.v, args: args() };
      }
      return { t: 'ident', name: t.v };
    }
    throw new CelSyntaxError('unexpected end of rule');
  };

  const e = expr();
  if (peek().k !== 'end') throw new CelSyntaxError('unexpected trailing input');
  return e;
}
