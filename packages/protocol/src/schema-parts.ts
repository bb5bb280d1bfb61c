import { type TLiteral, type TSchema, type TUnion, Type } from '@sinclair/typebox';

/** Pieces the REST shapes (api.ts, diagnosis.ts) are made of. */

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
export const Time = Type.Number({ description: 'epoch milliseconds' });
/** A time a request asks about: from 1970 to the end of year 9999, which every date type on the way holds. */
export const QueryTime = (description: string) =>
  Type.Integer({ minimum: 0, maximum: 253_402_300_799_999, description: `epoch ms; ${description}` });

/** One of a few strings, typed as exactly those. */
export const Literals = <const T extends readonly string[]>(values: T) =>
  Type.Union(values.map((v) => Type.Literal(v))) as unknown as TUnion<TLiteral<T[number]>[]>;
