import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

/**
 * A schema's check, compiled to JavaScript once (the ingest path checks every batch). Browsers take
 * `schema-check.browser.ts` instead: a dashboard whose Content-Security-Policy forbids evaluating
 * strings as code cannot compile.
 */
export function schemaCheck(schema: TSchema) {
  return TypeCompiler.Compile(schema);
}
