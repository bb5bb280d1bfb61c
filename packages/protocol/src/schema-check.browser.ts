import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * A schema's check for pages under a Content-Security-Policy without `unsafe-eval` (the dashboard's):
 * TypeBox interprets the schema instead of compiling it, with the same answers.
 */
export function schemaCheck(schema: TSchema) {
  return { Check: (value: unknown) => Value.Check(schema, value), Errors: (value: unknown) => Value.Errors(schema, value) };
}
