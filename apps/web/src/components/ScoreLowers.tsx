import type { ScoreFactorName } from '@rtcscope/protocol';
import type { whatLowers } from '../lib/diagnosis.js';

/** Each factor as a person reads it. */
const FACTOR: Record<ScoreFactorName, string> = {
  bitRate: 'too few bits for the picture',
  resolution: 'picture size',
  frameRate: 'frame rate',
  loss: 'lost or concealed media',
  freezes: 'freezes',
  delay: 'delay (mouth to ear)',
};

/**
 * What lowers each participant's score, in points of 5: a clean call is lowered by its source (a 10-fps
 * camera, a small picture), a troubled one by loss, freezes or delay. Nothing notable: the score is as high
 * as such a call gets.
 */
export function ScoreLowers({ lowers }: { lowers: ReturnType<typeof whatLowers> }) {
  if (!lowers.length) return null;
  return (
    <div className="score-lowers" data-testid="score-lowers">
      <b>What lowers the score</b>{' '}
      <span className="unit">(points of 5 each factor takes, the mean over the participant's 5-s windows)</span>
      <ul>
        {lowers.map(({ participant, windows, factors }) => (
          <li key={participant} data-testid={`lowers-${participant}`}>
            <b>{participant}</b>:{' '}
            {factors.length === 0 ? 'nothing notable' : factors.map(([f, points]) => `${FACTOR[f]} −${points.toFixed(1)}`).join(', ')}{' '}
            <span className="muted">({windows} windows)</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
