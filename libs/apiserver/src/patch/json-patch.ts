/**
 * RFC 6902 JSON patch (`application/json-patch+json`).
 *
 * fast-json-patch does the operations; this file checks the input first so that every failure is a
 * {@link PatchError} with the status kube-apiserver answers with. kube-apiserver
 * (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go`, `applyJSPatch`) returns
 * 400 BadRequest when the body does not decode as a list of operation objects (`jsonpatch.DecodePatch`),
 * and 422 Unprocessable Entity for every failure while applying (`patchObj.Apply`): an unknown `op`
 * ("Unexpected kind"), a missing `path`/`from`/`value`, a path that does not exist, a failed `test`.
 * We match that split: shape errors are 400 `InvalidPatch`; everything else is 422.
 */
import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import type { JsonObject } from '../types.js';
import { PatchError } from './patch-error.js';
import { cloneJson, isJsonObject, jsonEqual, jsonTypeName } from './internal/json-value.js';

const OPERATIONS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/**
 * Applies an RFC 6902 JSON patch to `target` and returns the patched copy; `target` is not changed.
 *
 * @param target - the object to patch.
 * @param patch - the parsed request body: an array of operations (`add`, `remove`, `replace`, `move`,
 *   `copy`, `test`).
 * @returns the patched object (a deep copy).
 * @throws {@link PatchError} `InvalidPatch` (400) when `patch` is not an array of objects;
 *   `InvalidOperation`, `InvalidPath`, `PathNotFound`, `TypeMismatch`, `TestOperationFailed` (422) when an
 *   operation cannot be applied; `NotAnObject` (422) when the result is not an object.
 */
export function applyJsonPatch(target: JsonObject, patch: unknown): JsonObject {
  if (!Array.isArray(patch)) {
    throw new PatchError(
      'InvalidPatch',
      400,
      `json: cannot unmarshal ${jsonTypeName(patch)} into Go value of type jsonpatch.Patch: a JSON patch must be an array of operations`,
    );
  }
  patch.forEach((operation, index) => {
    if (!isJsonObject(operation)) {
      throw new PatchError(
        'InvalidPatch',
        400,
        `json: cannot unmarshal ${jsonTypeName(operation)} into Go value of type jsonpatch.Operation (operation ${index} must be an object)`,
      );
    }
  });

  let document: unknown = cloneJson(target);
  (patch as JsonObject[]).forEach((raw, index) => {
    const operation = checkOperation(raw, index);
    // evanphx/json-patch v4 (kube-apiserver's) reads an absent key of an object as null, so a test
    // for null there passes
    if (operation.op === 'test' && operation.value === null && isAbsentKey(document, operation.path)) return;
    checkPaths(document, operation, index);
    try {
      const value = 'value' in operation ? cloneJson(operation.value) : undefined;
      const op = (value === undefined ? { ...operation } : { ...operation, value }) as Operation;
      document = jsonpatch.applyOperation(document, op, true, true, true, index).newDocument;
    } catch (error) {
      throw translate(error, operation, index);
    }
  });
  if (!isJsonObject(document)) {
    throw new PatchError(
      'NotAnObject',
      422,
      'the JSON patch replaced the object with a value that is not an object',
    );
  }
  return document;
}

interface CheckedOperation {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

function checkOperation(raw: JsonObject, index: number): CheckedOperation {
  const op = raw.op;
  if (typeof op !== 'string' || !OPERATIONS.has(op)) {
    throw new PatchError(
      'InvalidOperation',
      422,
      `Unexpected kind: ${typeof op === 'string' ? op : 'unknown'} (operation ${index}: op must be one of add, remove, replace, move, copy, test)`,
    );
  }
  if (typeof raw.path !== 'string') {
    throw new PatchError('InvalidOperation', 422, `operation ${index} (${op}) is missing the path field`);
  }
  const checked: CheckedOperation = { op, path: raw.path };
  if (op === 'move' || op === 'copy') {
    if (typeof raw.from !== 'string') {
      throw new PatchError('InvalidOperation', 422, `operation ${index} (${op}) is missing the from field`);
    }
    checked.from = raw.from;
  }
  if (op === 'add' || op === 'replace' || op === 'test') {
    if (!Object.hasOwn(raw, 'value')) {
      throw new PatchError('InvalidOperation', 422, `operation ${index} (${op}) is missing the value field`);
    }
    checked.value = raw.value;
  }
  return checked;
}

/** Splits a JSON pointer into its unescaped tokens. */
function parsePointer(pointer: string, index: number): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) {
    throw new PatchError(
      'InvalidPath',
      422,
      `operation ${index}: path ${JSON.stringify(pointer)} must start with "/"`,
    );
  }
  return pointer
    .slice(1)
    .split('/')
    .map((token) => {
      if (/~[^01]|~$/.test(token)) {
        throw new PatchError(
          'InvalidPath',
          422,
          `operation ${index}: path ${JSON.stringify(pointer)} has a bad ~ escape`,
        );
      }
      return token.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

function arrayIndex(
  token: string,
  length: number,
  allowEnd: boolean,
  pointer: string,
  index: number,
): number {
  if (allowEnd && token === '-') return length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) {
    throw new PatchError(
      'InvalidPath',
      422,
      `operation ${index}: ${JSON.stringify(token)} in ${pointer} is not an array index`,
    );
  }
  const position = Number(token);
  if (position > length || (!allowEnd && position === length)) {
    throw new PatchError(
      'PathNotFound',
      422,
      `doc is missing path: ${JSON.stringify(pointer)}: index ${position} is out of bounds`,
    );
  }
  return position;
}

/**
 * Walks to the parent of `pointer` and checks the last step, so that a missing path or a walk into a
 * scalar gets its own code (fast-json-patch reports both as one generic error).
 */
function checkPointer(document: unknown, pointer: string, mustExist: boolean, index: number): void {
  const tokens = parsePointer(pointer, index);
  let current = document;
  tokens.forEach((token, depth) => {
    const last = depth === tokens.length - 1;
    const here = '/' + tokens.slice(0, depth).join('/');
    if (Array.isArray(current)) {
      const position = arrayIndex(token, current.length, last && !mustExist, pointer, index);
      current = current[position];
    } else if (isJsonObject(current)) {
      if (!Object.hasOwn(current, token) && (mustExist || !last)) {
        throw new PatchError(
          'PathNotFound',
          422,
          `doc is missing path: ${JSON.stringify(pointer)}: missing value`,
        );
      }
      current = current[token];
    } else {
      throw new PatchError(
        'TypeMismatch',
        422,
        `operation ${index}: ${JSON.stringify(here === '/' ? '' : here)} is a ${jsonTypeName(current)}, not an object or array, so ${JSON.stringify(pointer)} cannot be reached`,
      );
    }
  });
}

/** Whether `pointer` names a key its parent object (which exists) does not have. */
function isAbsentKey(document: unknown, pointer: string): boolean {
  let tokens: string[];
  try {
    tokens = parsePointer(pointer, 0);
  } catch {
    return false;
  }
  if (tokens.length === 0) return false;
  let current = document;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(current) && /^(0|[1-9][0-9]*)$/.test(token)) current = current[Number(token)];
    else if (isJsonObject(current) && Object.hasOwn(current, token)) current = current[token];
    else return false;
  }
  return isJsonObject(current) && !Object.hasOwn(current, tokens[tokens.length - 1]);
}

function checkPaths(document: unknown, operation: CheckedOperation, index: number): void {
  const { op, path, from } = operation;
  if (from !== undefined) {
    checkPointer(document, from, true, index);
    if (op === 'move' && path !== from && path.startsWith(from + '/')) {
      throw new PatchError(
        'InvalidPath',
        422,
        `operation ${index}: cannot move ${from} into its own child ${path}`,
      );
    }
  }
  checkPointer(document, path, op !== 'add' && op !== 'move' && op !== 'copy', index);
  if (op === 'test') {
    const actual: unknown = path === '' ? document : jsonpatch.getValueByPointer(document, path);
    if (!jsonEqual(actual, operation.value)) {
      throw new PatchError('TestOperationFailed', 422, `testing value ${path} failed: test failed`);
    }
  }
}

/** Maps a fast-json-patch error that slipped past our checks to a PatchError. */
function translate(error: unknown, operation: CheckedOperation, index: number): PatchError {
  if (error instanceof PatchError) return error;
  const name = error instanceof jsonpatch.JsonPatchError ? error.name : '';
  const message = error instanceof Error ? error.message : String(error);
  switch (name) {
    case 'TEST_OPERATION_FAILED':
      return new PatchError(
        'TestOperationFailed',
        422,
        `testing value ${operation.path} failed: test failed`,
        {
          cause: error,
        },
      );
    case 'OPERATION_PATH_UNRESOLVABLE':
    case 'OPERATION_FROM_UNRESOLVABLE':
    case 'OPERATION_PATH_CANNOT_ADD':
    case 'OPERATION_VALUE_OUT_OF_BOUNDS':
      return new PatchError(
        'PathNotFound',
        422,
        `doc is missing path: ${JSON.stringify(operation.path)}: ${message}`,
        {
          cause: error,
        },
      );
    case 'OPERATION_PATH_ILLEGAL_ARRAY_INDEX':
    case 'OPERATION_PATH_INVALID':
      return new PatchError('InvalidPath', 422, `operation ${index}: ${message}`, { cause: error });
    default:
      return new PatchError('InvalidOperation', 422, `operation ${index} (${operation.op}): ${message}`, {
        cause: error,
      });
  }
}
