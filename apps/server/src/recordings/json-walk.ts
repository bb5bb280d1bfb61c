import type { Readable } from 'node:stream';
import parser from 'stream-json/parser.js';
import { RecordingError } from './errors.js';
import { RECORDING_LIMITS } from './limits.js';

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
 * hundreds of megabytes is never held whole. Strings, numbers and keys arrive in pieces and are bounded
 * as they grow (`RECORDING_LIMITS.tokenChars`), and so is nesting (`depth`), so no document costs more
 * than its size in time or memory. A cut-off or malformed document is an error naming the path it broke in.
 */
export async function walkJson(text: Readable, visitor: JsonVisitor): Promise<void> {
  const frames: Frame[] = [];
  // The keys of the frames below the top one, kept as the walk goes: nothing is copied per token.
  const path: (string | number)[] = [];
  let done = false;
  // Items put into the value being assembled: a wanted value is bounded before it is handed over.
  let assembled = 0;
  let token: string[] = [];
  let tokenChars = 0;
  const where = () =>
    frames.length ? `at ${formatPath([...path, ...(frames.at(-1)!.nextKey !== null ? [frames.at(-1)!.nextKey!] : [])])}` : 'at the start';
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
    if (++assembled > RECORDING_LIMITS.assembledItems)
      throw new RecordingError(where(), `holds more than ${RECORDING_LIMITS.assembledItems} items in one value, which no recording does`);
    if (Array.isArray(top.value)) top.value.push(value);
    else top.value[key as string] = value;
    return true;
  };
  // Only a visitor's own work is waited for: most tokens go by without a promise.
  const scalar = (value: unknown): void | Promise<void> => {
    const key = keyOfNext();
    if (place(key, value)) return;
    if (!frames.length) {
      done = true;
      return visitor.wants([]) ? visitor.value([], value) : undefined;
    }
    path.push(key!);
    const wanted = visitor.wants(path);
    const at = wanted ? [...path] : path;
    path.pop();
    return wanted ? visitor.value(at, value) : undefined;
  };
  const open = (container: unknown[] | Record<string, unknown>) => {
    const key = keyOfNext();
    if (frames.length >= RECORDING_LIMITS.depth)
      throw new RecordingError(where(), `nests deeper than ${RECORDING_LIMITS.depth} levels, which no recording does`);
    const parentBuilding = frames.at(-1)?.value != null;
    if (frames.length) path.push(key!);
    const build = parentBuilding || visitor.wants(path);
    if (parentBuilding) place(key, container);
    // An array counts its items (index from 0); an object, index -1, takes its keys from key tokens.
    frames.push({ key, value: build ? container : null, nextKey: null, index: Array.isArray(container) ? 0 : -1 });
  };
  const close = (): void | Promise<void> => {
    const at = [...path];
    const frame = frames.pop()!;
    if (frames.length) path.pop();
    else done = true;
    if (frame.value && frames.at(-1)?.value == null) {
      assembled = 0;
      return visitor.value(at, frame.value);
    }
    if (!frame.value) return visitor.leave?.(at);
  };
  const chunk = (piece: string) => {
    tokenChars += piece.length;
    if (tokenChars > RECORDING_LIMITS.tokenChars)
      throw new RecordingError(
        where(),
        `holds a string or number longer than ${RECORDING_LIMITS.tokenChars} characters, which no recording does`,
      );
    token.push(piece);
  };
  const takeToken = (): string => {
    const whole = token.length === 1 ? token[0]! : token.join('');
    token = [];
    tokenChars = 0;
    return whole;
  };
  let ended = false;
  text.once('end', () => (ended = true));
  // Values come in pieces (never packed by the parser), so a string of a gigabyte is refused, not assembled.
  const tokens = text.pipe(parser.asStream({ packValues: false, streamValues: true }));
  // An upload that fails (the uploader went away) fails the walk, not the process.
  text.once('error', (err) => tokens.destroy(err));
  try {
    for await (const t of tokens as AsyncIterable<{ name: string; value?: string }>) {
      if (done) throw new RecordingError('after the document', 'more follows the JSON document');
      let pending: void | Promise<void> = undefined;
      switch (t.name) {
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
        case 'stringChunk':
        case 'numberChunk':
          chunk(t.value!);
          break;
        case 'endKey':
          frames.at(-1)!.nextKey = takeToken();
          break;
        case 'endString':
          pending = scalar(takeToken());
          break;
        case 'endNumber':
          pending = scalar(Number(takeToken()));
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
    tokens.destroy();
    if (err instanceof RecordingError || text.errored) throw err;
    if (ended) throw new RecordingError(where(), 'the file ends in the middle of the JSON document (cut off?)');
    throw new RecordingError(where(), `not valid JSON (${(err as Error).message})`);
  }
  if (!done) throw new RecordingError(where(), 'the file ends in the middle of the JSON document (cut off?)');
}

export function formatPath(path: JsonPath): string {
  return (
    path
      .map((k, i) => (typeof k === 'number' ? `[${k}]` : /^[A-Za-z_$][\w$]*$/.test(k) ? `${i ? '.' : ''}${k}` : `[${JSON.stringify(k)}]`))
      .join('') || '(root)'
  );
}
