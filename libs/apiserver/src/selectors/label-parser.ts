import { SelectorError } from './selector-error.js';
import type { LabelOperator, LabelRequirement, LabelSelector } from './label-selector.js';
import { EVERYTHING, newRequirement, sortByKey } from './label-selector.js';
import { invalidField, labelKeyErrors } from './label-validation.js';

/**
 * Parser of the label selector text syntax, following apimachinery's `labels.Parse` token by token
 * so that the same input is accepted, and refused with the same message, as by kube-apiserver.
 */

type Tok =
  | 'error'
  | 'eos'
  | 'closePar'
  | 'comma'
  | 'not'
  | 'doubleEquals'
  | 'equals'
  | 'gt'
  | 'identifier'
  | 'in'
  | 'lt'
  | 'notEquals'
  | 'notIn'
  | 'openPar';

interface Item {
  tok: Tok;
  lit: string;
}

const LITERALS: ReadonlyMap<string, Tok> = new Map<string, Tok>([
  [')', 'closePar'],
  [',', 'comma'],
  ['!', 'not'],
  ['==', 'doubleEquals'],
  ['=', 'equals'],
  ['>', 'gt'],
  ['in', 'in'],
  ['<', 'lt'],
  ['!=', 'notEquals'],
  ['notin', 'notIn'],
  ['(', 'openPar'],
]);

const isWhitespace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string): boolean =>
  c === '=' || c === '!' || c === '(' || c === ')' || c === ',' || c === '>' || c === '<';

/** Splits the input into tokens; the last one is always `eos`. */
function scan(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  // Go's lexer reads a NUL byte as the end of the input.
  const at = (i: number): string => (i < s.length && s[i] !== '\0' ? s[i] : '');
  for (;;) {
    while (at(pos) !== '' && isWhitespace(at(pos))) pos++;
    const c = at(pos);
    if (c === '') {
      items.push({ tok: 'eos', lit: '' });
      return items;
    }
    if (isSpecial(c)) {
      let buffer = '';
      let last: Item | undefined;
      while (at(pos) !== '' && isSpecial(at(pos))) {
        buffer += at(pos);
        const tok = LITERALS.get(buffer);
        if (tok !== undefined) last = { tok, lit: buffer };
        else if (last !== undefined) break;
        pos++;
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buffer}'` });
    } else {
      let buffer = '';
      while (at(pos) !== '' && !isSpecial(at(pos)) && !isWhitespace(at(pos))) buffer += s[pos++];
      items.push({ tok: LITERALS.get(buffer) ?? 'identifier', lit: buffer });
    }
  }
}

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

function fail(message: string): never {
  throw new SelectorError('InvalidLabelSelector', message);
}

class Parser {
  private position = 0;

  constructor(private readonly items: readonly Item[]) {}

  /** The current token; in the values context the keywords `in`/`notin` are plain identifiers. */
  private lookahead(values: boolean): Item {
    return this.contextual(this.items[this.position], values);
  }

  private consume(values: boolean): Item {
    const item = this.items[this.position];
    // The trailing `eos` is never passed: every caller stops there.
    if (this.position < this.items.length - 1) this.position++;
    return this.contextual(item, values);
  }

  private contextual(item: Item, values: boolean): Item {
    return values && (item.tok === 'in' || item.tok === 'notIn')
      ? { tok: 'identifier', lit: item.lit }
      : item;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(true);
      if (tok === 'identifier' || tok === 'not') {
        let req: LabelRequirement;
        try {
          req = this.parseRequirement();
        } catch (err) {
          if (err instanceof SelectorError) fail(`unable to parse requirement: ${err.message}`);
          throw err;
        }
        reqs.push(req);
        const next = this.consume(true);
        if (next.tok === 'eos') return reqs;
        if (next.tok === 'comma') {
          const after = this.lookahead(true);
          if (after.tok !== 'identifier' && after.tok !== 'not') {
            fail(`found '${after.lit}', expected: identifier after ','`);
          }
        } else {
          fail(`found '${next.lit}', expected: ',' or 'end of string'`);
        }
      } else if (tok === 'eos') {
        return reqs;
      } else {
        fail(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    const { key, operator: inferred } = this.parseKeyAndInferOperator();
    if (inferred !== undefined) return newRequirement(key, inferred, []);
    const operator = this.parseOperator();
    const values = operator === 'in' || operator === 'notin' ? this.parseValues() : this.parseExactValue();
    // `values.List()` in Go: the distinct values, sorted.
    return newRequirement(key, operator, [...values].sort());
  }

  private parseKeyAndInferOperator(): { key: string; operator: LabelOperator | undefined } {
    let operator: LabelOperator | undefined;
    let item = this.consume(true);
    if (item.tok === 'not') {
      operator = '!';
      item = this.consume(true);
    }
    if (item.tok !== 'identifier') fail(`found '${item.lit}', expected: identifier`);
    const keyErrs = labelKeyErrors(item.lit);
    if (keyErrs.length > 0) fail(invalidField(undefined, item.lit, keyErrs.join('; ')));
    const next = this.lookahead(true).tok;
    if ((next === 'eos' || next === 'comma') && operator === undefined) operator = 'exists';
    return { key: item.lit, operator };
  }

  private parseOperator(): LabelOperator {
    const { tok, lit } = this.consume(false);
    switch (tok) {
      case 'in':
        return 'in';
      case 'equals':
        return '=';
      case 'doubleEquals':
        return '==';
      case 'gt':
        return 'gt';
      case 'lt':
        return 'lt';
      case 'notIn':
        return 'notin';
      case 'notEquals':
        return '!=';
      default:
        return fail(`found '${lit}', expected: ${BINARY_OPERATORS}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume(true);
    if (open.tok !== 'openPar') fail(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead(true);
    if (tok === 'identifier' || tok === 'comma') {
      const values = this.parseIdentifiersList();
      // Go reports the token that followed '(' here, not the one found.
      if (this.consume(true).tok !== 'closePar') fail(`found '${lit}', expected: ')'`);
      return values;
    }
    if (tok === 'closePar') {
      this.consume(true);
      return new Set(['']);
    }
    return fail(`found '${lit}', expected: ',', ')' or identifier`);
  }

  private parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume(true);
      if (tok === 'identifier') {
        values.add(lit);
        const next = this.lookahead(true);
        if (next.tok === 'comma') continue;
        if (next.tok === 'closePar') return values;
        fail(`found '${next.lit}', expected: ',' or ')'`);
      } else if (tok === 'comma') {
        if (values.size === 0) values.add('');
        const next = this.lookahead(true).tok;
        if (next === 'closePar') {
          values.add('');
          return values;
        }
        if (next === 'comma') {
          this.consume(true);
          values.add('');
        }
      } else {
        fail(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const next = this.lookahead(true).tok;
    if (next === 'eos' || next === 'comma') return new Set(['']);
    const { tok, lit } = this.consume(true);
    if (tok === 'identifier') return new Set([lit]);
    return fail(`found '${lit}', expected: identifier`);
  }
}

/**
 * Parses a label selector as given in `?labelSelector=` (kube-apiserver's `labels.Parse`):
 * `key=value`, `key==value`, `key!=value`, `key in (a,b)`, `key notin (a,b)`, `key` (exists),
 * `!key` (does not exist), `key>1` / `key<1` (integer comparison), joined by `,` (AND); blanks
 * around tokens are ignored. The empty string (or only blanks) selects everything.
 *
 * @throws SelectorError (code `InvalidLabelSelector`, status 400) worded as kube-apiserver does, e.g.
 *   `unable to parse requirement: found '', expected: in, notin, =, ==, !=, gt, lt`.
 */
export function parseLabelSelector(s: string): LabelSelector {
  if (typeof s !== 'string') fail(`label selector must be a string, got ${typeof s}`);
  const reqs = new Parser(scan(s)).parse();
  if (reqs.length === 0) return EVERYTHING;
  return Object.freeze({ requirements: Object.freeze(sortByKey(reqs)), matchesNothing: false });
}
