import type { Readable } from 'node:stream';
import parser from 'stream-json/parser.js';
import { RecordingError } from './errors.js';

export type JsonPath = readonly (string | number)[];

interface Frame {
  key: string | number | null;
  /** The container being assembled (its parent is not), or null while only walking through it. */
  value: unknown[] | Record<string, unknown> | null;
  nextKey: string | null;
  index: number;
}

export interface JsonVisitor {
  /** Whether the value at `path` is wanted whole; it is then assembled and given to `value`. */
  wants(path: JsonPath): boolean;
  value(path: JsonPath, value: unknown): void | Promise<void>;
  /** A container walked through (not assembled) ended. */
  leave?(path: JsonPath): void | Promise<void>;
}

/**
 * Walks a JSON document as it streams in, assembling only the values the visitor wants: a file of
 * hundreds of megabytes is never held whole. A cut-off or malformed document is an error naming the
 * path it broke in.
 */
export async function walkJson(text: Readable, visitor: JsonVisitor): Promise<void> {
  const frames: Frame[] = [];
  let done = false;
  const path = (): (string | number)[] => frames.slice(1).map((f) => f.key!);
  const where = () => (frames.length ? `at ${formatPath([...path(), ...(frames.at(-1)!.nextKey !== null ? [frames.at(-1)!.nextKey!] : [])])}` : 'at the start');
  const keyOfNext = (): string | number | null => {
    const top = frames.at(-1);
    if (!top) return null;
    if (top.index >= 0) return top.index++;
    const key = top.nextKey;
    top.nextKey = null;
    return key;
  };
  const place = (key: string | number | null, value: unknown): boolean => {
    const top = frames.at(-1);
    if (!top?.value) return false;
    if (Array.isArray(top.value)) top.value.push(value);
    else top.value[key as string] = value;
    return true;
  };
  // Only a visitor's own work is waited for: most tokens go by without a promise.
  const scalar = (value: unknown): void | Promise<void> => {
    const key = keyOfNext();
    if (place(key, value)) return;
    const at = frames.length ? [...path(), key!] : [];
    if (!frames.length) done = true;
    return visitor.wants(at) ? visitor.value(at, value) : undefined;
  };
  const open = (container: unknown[] | Record<string, unknown>) => {
    const key = keyOfNext();
    const parentBuilding = frames.at(-1)?.value != null;
    const at = frames.length ? [...path(), key!] : [];
    const build = parentBuilding || visitor.wants(at);
    if (parentBuilding) place(key, container);
    // An array counts its items (index from 0); an object, index -1, takes its keys from keyValue tokens.
    frames.push({ key, value: build ? container : null, nextKey: null, index: Array.isArray(container) ? 0 : -1 });
  };
  const close = (): void | Promise<void> => {
    const at = path();
    const frame = frames.pop()!;
    if (!frames.length) done = true;
    if (frame.value && frames.at(-1)?.value == null) return visitor.value(at, frame.value);
    if (!frame.value) return visitor.leave?.(at);
  };
  let ended = false;
  text.once('end', () => (ended = true));
  const tokens = text.pipe(parser.asStream({ packValues: true, streamValues: false }));
  // An upload that fails (the uploader went away) fails the walk, not the process.
  text.once('error', (err) => tokens.destroy(err));
  try {
    for await (const token of tokens as AsyncIterable<{ name: string; value?: string }>) {
      if (done) throw new RecordingError('after the document', 'more follows the JSON document');
      let pending: void | Promise<void> = undefined;
      switch (token.name) {
        case 'startObject':
          open({});
          break;
        case 'startArray':
          open([]);
          break;
        case 'endObject':
        case 'endArray':
          pending = close();
          break;
        case 'keyValue':
          frames.at(-1)!.nextKey = token.value!;
          break;
        case 'stringValue':
          pending = scalar(token.value);
          break;
        case 'numberValue':
          pending = scalar(Number(token.value));
          break;
        case 'trueValue':
          pending = scalar(true);
          break;
        case 'falseValue':
          pending = scalar(false);
          break;
        case 'nullValue':
          pending = scalar(null);
          break;
      }
      if (pending) await pending;
    }
  } catch (err) {
    if (err instanceof RecordingError || text.errored) throw err;
    if (ended) throw new RecordingError(where(), 'the file ends in the middle of the JSON document (cut off?)');
    throw new RecordingError(where(), `not valid JSON (${(err as Error).message})`);
  }
  if (!done) throw new RecordingError(where(), 'the file ends in the middle of the JSON document (cut off?)');
}

export function formatPath(path: JsonPath): string {
  return path.map((k, i) => (typeof k === 'number' ? `[${k}]` : /^[A-Za-z_$][\w$]*$/.test(k) ? `${i ? '.' : ''}${k}` : `[${JSON.stringify(k)}]`)).join('') || '(root)';
}
