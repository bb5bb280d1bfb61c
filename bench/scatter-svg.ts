/** A scatter plot as a standalone SVG: points in series by colour, axes with ticks and units, a legend. */
export interface ScatterSeries {
  name: string;
  points: { x: number; y: number }[];
}

const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#4b5563', '#ca8a04'];
const [W, H, LEFT, BOTTOM, TOP, RIGHT] = [720, 480, 64, 52, 36, 170];

const ticks = (lo: number, hi: number, n = 5) => Array.from({ length: n + 1 }, (_, k) => lo + ((hi - lo) * k) / n);
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

export function scatterSvg(o: {
  title: string;
  x: { label: string; min: number; max: number };
  y: { label: string; min: number; max: number };
  series: ScatterSeries[];
}): string {
  const px = (x: number) => LEFT + ((x - o.x.min) / (o.x.max - o.x.min)) * (W - LEFT - RIGHT);
  const py = (y: number) => H - BOTTOM - ((y - o.y.min) / (o.y.max - o.y.min)) * (H - TOP - BOTTOM);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${LEFT}" y="20" font-size="14" font-weight="bold">${esc(o.title)}</text>`,
  ];
  for (const t of ticks(o.x.min, o.x.max))
    out.push(
      `<line x1="${px(t)}" x2="${px(t)}" y1="${TOP}" y2="${H - BOTTOM}" stroke="#e5e7eb"/>`,
      `<text x="${px(t)}" y="${H - BOTTOM + 16}" text-anchor="middle">${+t.toFixed(2)}</text>`,
    );
  for (const t of ticks(o.y.min, o.y.max))
    out.push(
      `<line x1="${LEFT}" x2="${W - RIGHT}" y1="${py(t)}" y2="${py(t)}" stroke="#e5e7eb"/>`,
      `<text x="${LEFT - 6}" y="${py(t) + 4}" text-anchor="end">${+t.toFixed(2)}</text>`,
    );
  out.push(
    `<text x="${(LEFT + W - RIGHT) / 2}" y="${H - 12}" text-anchor="middle">${esc(o.x.label)}</text>`,
    `<text transform="translate(16 ${(TOP + H - BOTTOM) / 2}) rotate(-90)" text-anchor="middle">${esc(o.y.label)}</text>`,
  );
  for (const [k, s] of o.series.entries()) {
    const color = COLORS[k % COLORS.length]!;
    for (const p of s.points)
      out.push(`<circle cx="${px(p.x).toFixed(1)}" cy="${py(p.y).toFixed(1)}" r="3" fill="${color}" fill-opacity="0.6"/>`);
    out.push(
      `<circle cx="${W - RIGHT + 16}" cy="${TOP + 10 + k * 18}" r="4" fill="${color}"/>`,
      `<text x="${W - RIGHT + 26}" y="${TOP + 14 + k * 18}">${esc(s.name)} (${s.points.length})</text>`,
    );
  }
  out.push('</svg>');
  return out.join('\n') + '\n';
}
