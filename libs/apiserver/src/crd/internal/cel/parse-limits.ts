// Parsing a CEL expression within cel-go's parser limits, which kube-apiserver keeps: the size of the
// expression in code points and its nesting depth. Every walk over a parsed expression (ours and the
// library's planner) recurses once per level, so the depth is bounded before any of them runs.

import { parse } from '@bufbuild/cel';
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { desugarOptionals, originalOffset, rewriteOptionalSyntax } from './optional-syntax.js';

/** A CEL expression that does not compile; the message is kube-apiserver's "compilation failed" text. */
export class CompileError extends Error {}

const MAX_CODE_POINTS = 100_000;
const MAX_RECURSION_DEPTH = 250;

const recursionLimitError = () =>
  new CompileError(
    `compilation failed: ERROR: <input>: expression recursion limit exceeded: ${MAX_RECURSION_DEPTH}`,
  );

/** The depth of a parsed expression (stops counting past the limit), walked without recursion. */
function exprDepth(root: Expr): number {
  let max = 0;
  const stack: [Expr | undefined, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [e, depth] = stack.pop()!;
    if (!e) continue;
    if (depth > max) max = depth;
    if (max > MAX_RECURSION_DEPTH) return max;
    const k = e.exprKind;
    const push = (c: Expr | undefined) => stack.push([c, depth + 1]);
    switch (k.case) {
      case 'callExpr':
        push(k.value.target);
        k.value.args.forEach(push);
        break;
      case 'selectExpr':
        push(k.value.operand);
        break;
      case 'listExpr':
        k.value.elements.forEach(push);
        break;
      case 'structExpr':
        for (const en of k.value.entries) {
          if (en.keyKind.case === 'mapKey') push(en.keyKind.value);
          push(en.value);
        }
        break;
      case 'comprehensionExpr': {
        const c = k.value;
        [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result].forEach(push);
        break;
      }
      default:
        break;
    }
  }
  return max;
}

/**
 * Parses `text` (with cel-go's `a.?b` and `a[?k]` optional syntax, see optional-syntax.ts), refusing an expression over 100,000 code points or nested deeper than 250 levels
 * with cel-go's texts (an input that deep would otherwise overflow the stack: a 500 instead of a 422).
 * @throws CompileError with kube-apiserver's "compilation failed: ERROR: ..." message.
 */
export function parseWithLimits(text: string): ReturnType<typeof parse> {
  const codePoints = [...text].length;
  if (codePoints > MAX_CODE_POINTS) {
    throw new CompileError(
      `compilation failed: ERROR: <input>: expression code point size exceeds limit: size: ${codePoints}, limit ${MAX_CODE_POINTS}`,
    );
  }
  const rewritten = rewriteOptionalSyntax(text);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(rewritten.text);
  } catch (err) {
    // the library's parser recurses per nesting level: too deep an input overflows its stack
    if (err instanceof RangeError) throw recursionLimitError();
    throw new CompileError(`compilation failed: ERROR: ${(err as Error).message}`, { cause: err });
  }
  if (exprDepth(parsed.expr) > MAX_RECURSION_DEPTH) throw recursionLimitError();
  if (parsed.expr && (rewritten.inserts.length > 0 || /optMap|optFlatMap/.test(text))) {
    desugarOptionals(parsed.expr);
    const positions = parsed.sourceInfo?.positions;
    if (positions)
      for (const id of Object.keys(positions)) positions[id] = originalOffset(rewritten, positions[id]);
  }
  return parsed;
}
