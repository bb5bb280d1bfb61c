import { describe, expect, it } from 'vitest';
import { agreement, agreementTable, type HeardWindow, PESQ, type ScoredWindow, VISQOL, VMAF } from './agreement.js';

const w = (family: string, content: string, score: number | null, vmaf: number | null, ssim: number | null = null): ScoredWindow => ({
  family,
  content,
  score,
  vmaf,
  ssim,
});

describe('agreement', () => {
  it('ranks, correlates and measures the error on 1–5 of the scored windows with a VMAF; SSIM over those with one', () => {
    const windows = [
      w('clean', 'a', 5, 100, 0.99),
      w('cap', 'a', 3, 50, 0.8),
      w('cap', 'a', 1, 0, 0.5),
      w('cap', 'a', null, 10, 0.1),
      w('cap', 'a', 2, null, 0.6),
    ];
    const a = agreement(windows, VMAF);
    expect(a.n).toBe(4);
    expect(a.spearman).toBeCloseTo(1, 12);
    expect(a.pearson).toBeCloseTo(1, 12);
    // VMAF 100, 50, 0 is 5, 3, 1 on 1–5: no error.
    expect(a.mae).toBeCloseTo(0, 12);
    expect(a.scoreRange).toEqual([1, 5]);
    expect(
      agreement(
        windows.map((x) => ({ ...x, vmaf: null })),
        VMAF,
      ).spearman,
    ).toBeNull();
    expect(a.referenceRange).toEqual([0, 100]);
    expect(a.secondSpearman).toBeCloseTo(1, 12);
  });

  it('says a score that ranks the windows backwards, and reads another score when given one', () => {
    const windows = [w('cap', 'a', 1, 90), w('cap', 'a', 2, 60), w('cap', 'a', 3, 30)];
    expect(agreement(windows, VMAF).spearman).toBeCloseTo(-1, 12);
    expect(agreement(windows, VMAF, (x) => 10 - x.score!).spearman).toBeCloseTo(1, 12);
    expect(agreement([], VMAF).spearman).toBeNull();
  });

  it('judges audio against PESQ as it stands on 1–5, with no second measure', () => {
    const heard = (score: number, pesq: number | null): HeardWindow => ({ family: 'loss', content: 'a', score, pesq });
    const a = agreement([heard(4.4, 4.2), heard(3, 2.5), heard(2, 1.5), heard(1, null)], PESQ);
    expect([a.n, a.spearman, a.referenceRange, a.secondSpearman]).toEqual([4, 1, [1.5, 4.2], null]);
    expect(a.mae).toBeCloseTo((0.2 + 0.5 + 0.5) / 3, 12);
  });

  it('judges audio against ViSQOL, with PESQ ranked beside it, and leaves out windows of runs that did not measure it', () => {
    const heard = (score: number, pesq: number, visqol?: number): HeardWindow => ({ family: 'jitter', content: 'a', score, pesq, visqol });
    // Stretched speech: PESQ falls where ViSQOL and the score barely move.
    const a = agreement([heard(4.3, 3.9, 4.4), heard(4.2, 1.9, 4.2), heard(3.0, 1.5, 3.1), heard(2.0, 2.5)], VISQOL);
    expect([a.n, a.spearman, a.referenceRange]).toEqual([4, 1, [3.1, 4.4]]);
    expect(a.secondSpearman).toBeCloseTo(0.4, 12);
  });

  it("draws Spearman's interval by whole calls where told which call a window is of", () => {
    // Six calls of four windows: one score ranks them as VMAF does, another is unrelated to it.
    const windows = Array.from({ length: 24 }, (_, k) => ({
      ...w('cap', 'a', 1 + k / 8, k * 4),
      unrelated: 1 + ((k * 7) % 24) / 8,
      call: `c${Math.floor(k / 4)}`,
    }));
    const call = (x: (typeof windows)[number]) => x.call;
    expect(agreement(windows, VMAF, undefined, { call }).spearmanInterval).toEqual([1, 1]);
    const [lo, hi] = agreement(windows, VMAF, (x) => x.unrelated, { call }).spearmanInterval!;
    expect(lo).toBeLessThan(0);
    expect(hi).toBeGreaterThan(0);
    expect(agreement(windows, VMAF).spearmanInterval).toBeNull();
  });
});

describe('agreementTable', () => {
  it('gives all windows, each family with the clean calls, and each content', () => {
    const windows = [w('clean', 'talking', 4, 95), w('cap', 'talking', 2, 60), w('loss', 'busy', 3, 70), w('clean', 'busy', 4.5, 99)];
    const table = agreementTable(windows, VMAF);
    expect(table.map((r) => [r.over, r.name, r.agreement.n])).toEqual([
      ['all', 'all', 4],
      ['family', 'cap', 3],
      ['family', 'loss', 3],
      ['content', 'talking', 2],
      ['content', 'busy', 2],
    ]);
  });
});
