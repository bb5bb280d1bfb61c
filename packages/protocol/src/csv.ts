/** A CSV cell: text quoted where it holds a comma, a quote or a line break; an unknown value empty. */
function cell(v: string | number | null): string {
  if (v === null) return '';
  const text = String(v);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The CSV the API and the dashboard export (RFC 4180, a header line first, `\n` line ends). */
export function toCsvText(header: readonly string[], rows: readonly (readonly (string | number | null)[])[]): string {
  return `${[header, ...rows].map((r) => r.map(cell).join(',')).join('\n')}\n`;
}
