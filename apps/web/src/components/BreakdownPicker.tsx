import type { INSIGHT_BREAKDOWNS } from '@rtcscope/protocol';
import { useState } from 'react';

export type Breakdown = (typeof INSIGHT_BREAKDOWNS)[number];

export const BREAKDOWN_NAMES: Record<Breakdown, string> = {
  none: 'nothing (the whole fleet)',
  browser: 'browser',
  browserVersion: 'browser version',
  os: 'operating system',
  deviceType: 'device type',
  sdkVersion: 'SDK version',
  country: 'country',
  path: 'path (candidate type / protocol)',
};

/** A breakdown as picked: one of the fixed ones, or `metadata` with the key typed beside it. */
export function useBreakdown(initial: Breakdown) {
  const [breakdown, setBreakdown] = useState<string>(initial);
  const [metadataKey, setMetadataKey] = useState('');
  const key = metadataKey.trim();
  // What the API is asked: an empty metadata key asks for no breakdown rather than an error.
  const asked = breakdown === 'metadata' ? (key ? `metadata:${key}` : 'none') : breakdown;
  const label = breakdown === 'metadata' ? `metadata ${key}` : (BREAKDOWN_NAMES[breakdown as Breakdown] ?? breakdown);
  return { breakdown, setBreakdown, metadataKey, setMetadataKey, asked, label };
}

/** "Broken down by" a select of breakdowns, and a metadata key's field when that is picked. */
export function BreakdownPicker({
  choice,
  options,
  names = {},
  metadataHint = '',
  placeholder,
  testId,
}: {
  choice: ReturnType<typeof useBreakdown>;
  options: readonly Breakdown[];
  /** A page's own wording for some breakdowns, over the common names. */
  names?: Partial<Record<Breakdown, string>>;
  metadataHint?: string;
  placeholder: string;
  testId: string;
}) {
  return (
    <>
      <label>
        Broken down by{' '}
        <select value={choice.breakdown} onChange={(e) => choice.setBreakdown(e.target.value)} data-testid={testId}>
          {options.map((b) => (
            <option key={b} value={b}>
              {names[b] ?? BREAKDOWN_NAMES[b]}
            </option>
          ))}
          <option value="metadata">a metadata key…{metadataHint && ` (${metadataHint})`}</option>
        </select>
      </label>
      {choice.breakdown === 'metadata' && (
        <input
          value={choice.metadataKey}
          onChange={(e) => choice.setMetadataKey(e.target.value)}
          placeholder={placeholder}
          aria-label="Metadata key"
        />
      )}
    </>
  );
}
