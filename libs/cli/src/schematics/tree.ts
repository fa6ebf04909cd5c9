/**
 * The part of `@angular-devkit/schematics`' `Tree` the tosdk schematics use (the engine passes its
 * own; nothing of the devkit is imported at run time).
 */
export interface SchematicTree {
  exists(path: string): boolean;
  read(path: string): { toString(encoding?: string): string } | null;
  create(path: string, content: string): void;
  overwrite(path: string, content: string): void;
}

/** A schematic rule: changes the tree. */
export type SchematicRule = (tree: SchematicTree) => SchematicTree;

/** Thrown when the project is not laid out as `create-tosdk` does; the message says what is missing. */
export class SchematicError extends Error {
  /** Stable error code. */
  readonly code = 'TosdkSchematic';
  constructor(message: string) {
    super(message);
    this.name = 'SchematicError';
  }
}

/** Inserts `line` before the line holding `marker` in `path` (kept for the next addition). */
export function insertBefore(tree: SchematicTree, path: string, marker: string, line: string): void {
  const text = tree.read(path)?.toString('utf8');
  if (text === undefined) {
    throw new SchematicError(
      `${path} is missing: the tosdk schematics extend a project made by create-tosdk`,
    );
  }
  const at = text.indexOf(marker);
  if (at < 0) {
    throw new SchematicError(`${path} has no "${marker}" line: put it back where additions should go`);
  }
  const lineStart = text.lastIndexOf('\n', at) + 1;
  const indent = text.slice(lineStart, at);
  tree.overwrite(path, `${text.slice(0, lineStart)}${indent}${line}\n${text.slice(lineStart)}`);
}
