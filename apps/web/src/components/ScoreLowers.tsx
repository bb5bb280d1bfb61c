import type { ScoreFactorName } from '@rtcscope/protocol';
import type { HeardApart, whatLowers } from '../lib/diagnosis.js';

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
 * Points the delay takes from a conversation before the page says so apart: ~0.3 is a mouth-to-ear delay
 * of ~230 ms, past G.114's 150 ms at which people begin to talk over each other.
 */
const LATE_POINTS = 0.3;

/** "Sounds fine, but 410 ms late": what a listener hears, and what the delay costs a conversation besides. */
function lateSaid(h: HeardApart | undefined): string | null {
  if (!h || h.listening - h.conversation < LATE_POINTS) return null;
  const late = h.delayMs === null ? 'late' : `${Math.round(h.delayMs)} ms late mouth to ear`;
  return `sounds ${h.listening.toFixed(1)} of 5, but ${late}: a conversation scores ${h.conversation.toFixed(1)}`;
}

/**
 * What lowers each participant's score, in points of 5: a clean call is lowered by its source (a 10-fps
 * camera, a small picture), a troubled one by loss, freezes or delay. Nothing notable: the score is as high
 * as such a call gets. Where delay is what lowers what a participant hears, it says so apart: the sound
 * itself may be fine.
 */
export function ScoreLowers({ lowers, heard }: { lowers: ReturnType<typeof whatLowers>; heard: readonly HeardApart[] }) {
  if (!lowers.length) return null;
  return (
    <div className="score-lowers" data-testid="score-lowers">
      <b>What lowers the score</b>{' '}
      <span className="unit">(points of 5 each factor takes, the mean over the participant's 5-s windows)</span>
      <ul>
        {lowers.map(({ participant, windows, factors }) => {
          const late = lateSaid(heard.find((h) => h.participant === participant));
          return (
            <li key={participant} data-testid={`lowers-${participant}`}>
              <b>{participant}</b>:{' '}
              {factors.length === 0 ? 'nothing notable' : factors.map(([f, points]) => `${FACTOR[f]} −${points.toFixed(1)}`).join(', ')}{' '}
              <span className="muted">({windows} windows)</span>
              {late && <span data-testid={`late-${participant}`}>; {late}</span>}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
