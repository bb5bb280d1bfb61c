import { frameCodeArea } from '@rtcscope/reference-quality';
import type { PeerPage } from '../browser/peer.js';
import { PageDrain } from './page-drain.js';
import { RECEIVED_TRACK } from './received-track.js';

/**
 * Records in a lab page what a video element shows, frame by frame, as a viewer would see it: each
 * frame presented (`requestVideoFrameCallback`, in Chromium and Firefox alike), its time and the corner
 * that carries its number; and, every `tickMs`, the whole luma plane of the frame on screen then (a frozen
 * picture is sent again, as the viewer saw it again). The page keeps them until the lab drains them.
 * Plain JavaScript evaluated in the page (not subject to its Content-Security-Policy), one recorder a page.
 */
const RECORDER = `(() => {
  if (window.__rtcscopeRecorder) return;
  const queue = { frames: [], ticks: [], busyMs: 0, unread: 0 };
  const base64 = (bytes) => {
    let s = '';
    for (let k = 0; k < bytes.length; k += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(k, k + 0x8000));
    return btoa(s);
  };
  const lumaOf = async (frame) => {
    const w = frame.visibleRect.width;
    const h = frame.visibleRect.height;
    const buffer = new Uint8Array(frame.allocationSize());
    const layout = await frame.copyTo(buffer);
    const y = new Uint8Array(w * h);
    if (/^(I4|NV12)/.test(frame.format)) {
      for (let r = 0; r < h; r++) y.set(buffer.subarray(layout[0].offset + r * layout[0].stride, layout[0].offset + r * layout[0].stride + w), r * w);
    } else {
      // RGB formats: BT.601 luma, as the encoder's input had it.
      const bgr = frame.format.startsWith('BGR');
      for (let r = 0; r < h; r++)
        for (let x = 0; x < w; x++) {
          const p = layout[0].offset + r * layout[0].stride + 4 * x;
          const [R, G, B] = bgr ? [buffer[p + 2], buffer[p + 1], buffer[p]] : [buffer[p], buffer[p + 1], buffer[p + 2]];
          y[r * w + x] = Math.round(16 + (65.481 * R + 128.553 * G + 24.966 * B) / 255);
        }
    }
    return { w, h, y };
  };
  ${RECEIVED_TRACK}
  window.__rtcscopeRecorder = {
    async start(o) {
      const lab = window.lab;
      const track = o.source === 'camera' ? lab.stream.getVideoTracks()[0] : await receivedTrack('video');
      if (!track) throw new Error('no ' + (o.source === 'camera' ? 'camera' : 'received video') + ' track to record');
      const video = document.createElement('video');
      video.muted = true;
      video.srcObject = new MediaStream([track]);
      document.body.append(video);
      let current = null;
      let chain = Promise.resolve();
      const onFrame = (now, meta) => {
        video.requestVideoFrameCallback(onFrame);
        const t = performance.timeOrigin + (meta.expectedDisplayTime || now);
        let frame;
        try {
          frame = new VideoFrame(video, { timestamp: 0 });
        } catch (err) {
          // A source between pictures (a resolution change, the track ending): this frame is not kept.
          queue.unread++;
          queue.error = String(err);
          return;
        }
        let started = 0;
        chain = chain
          .then(() => {
            started = performance.now();
            return lumaOf(frame);
          })
          .then((luma) => {
            current = { ...luma, encoded: null };
            const cw = Math.min(luma.w, Math.ceil(luma.h * o.codeWidthShare) + 2);
            const ch = Math.min(luma.h, Math.ceil(luma.h * o.codeHeightShare) + 1);
            const code = new Uint8Array(cw * ch);
            for (let r = 0; r < ch; r++) code.set(luma.y.subarray(r * luma.w, r * luma.w + cw), r * cw);
            queue.frames.push({ t, w: cw, h: luma.h, code: base64(code) });
            queue.busyMs += performance.now() - started;
          })
          .catch((err) => {
            queue.unread++;
            queue.error = String(err);
          })
          .finally(() => frame.close());
      };
      video.requestVideoFrameCallback(onFrame);
      void video.play();
      if (o.tickMs)
        setInterval(() => {
          if (!current) return;
          const started = performance.now();
          current.encoded = current.encoded || base64(current.y);
          queue.busyMs += performance.now() - started;
          queue.ticks.push({ t: performance.timeOrigin + performance.now(), w: current.w, h: current.h, y: current.encoded });
        }, o.tickMs);
    },
    drain() {
      const out = { frames: queue.frames, ticks: queue.ticks, busyMs: queue.busyMs, unread: queue.unread, error: queue.error || null };
      queue.frames = [];
      queue.ticks = [];
      queue.busyMs = 0;
      queue.unread = 0;
      return out;
    },
  };
})()`;

/** A frame presented: when (epoch ms), its size, and the corner of its luma plane that carries its number. */
export interface PresentedFrame {
  t: number;
  /** The corner's width (its row stride) and the picture's height (which sizes the code's blocks). */
  w: number;
  h: number;
  code: Uint8Array;
}

/** What was on screen at a tick: the whole luma plane of the frame shown then. */
export interface ScreenTick {
  t: number;
  w: number;
  h: number;
  y: Uint8Array;
}

interface Drained {
  frames: { t: number; w: number; h: number; code: string }[];
  ticks: { t: number; w: number; h: number; y: string }[];
  busyMs: number;
  unread: number;
  error: string | null;
}

/**
 * What one page showed of one video: its own camera (`camera`: the sender's log of what it sent) or the
 * video it receives (`received`: what the viewer saw). Drains the page twice a second, so the page holds
 * little; what came after the last drain when the page closed is lost (the call's last half second).
 */
export class VideoRecording {
  readonly frames: PresentedFrame[] = [];
  readonly ticks: ScreenTick[] = [];
  /** The page's time spent recording, ms: copying each frame out, its corner and the ticks' pictures encoded (wall time of that work, so at most its CPU). */
  busyMs = 0;
  /** Frames presented that could not be read from the video element (one between two sizes), and why the last could not. */
  unread = 0;
  lastError: string | null = null;
  private readonly drains: PageDrain<Drained>;

  private constructor(page: PeerPage) {
    this.drains = new PageDrain<Drained>(page, '__rtcscopeRecorder', (d) => {
      if (d.error) this.lastError = d.error;
      this.busyMs += d.busyMs;
      this.unread += d.unread;
      for (const f of d.frames) this.frames.push({ t: f.t, w: f.w, h: f.h, code: Buffer.from(f.code, 'base64') });
      for (const k of d.ticks) this.ticks.push({ t: k.t, w: k.w, h: k.h, y: Buffer.from(k.y, 'base64') });
    });
  }

  /** Starts recording in `page`; `tickMs` (received only) how often the picture on screen is kept, for comparing it with the one due. */
  static async start(page: PeerPage, source: 'camera' | 'received', o: { sourceHeight: number; tickMs?: number }): Promise<VideoRecording> {
    const area = frameCodeArea(o.sourceHeight);
    await page.evaluate(RECORDER);
    await page.evaluate(
      (opts) => (window as unknown as { __rtcscopeRecorder: { start(x: unknown): Promise<void> } }).__rtcscopeRecorder.start(opts),
      {
        source,
        codeWidthShare: area.width / o.sourceHeight,
        codeHeightShare: area.height / o.sourceHeight,
        tickMs: o.tickMs ?? 0,
      },
    );
    return new VideoRecording(page);
  }

  /** Drains what is left and stops; throws when not one frame was read (and why the last could not be). */
  async stop(): Promise<void> {
    await this.drains.stop();
    if (!this.frames.length) throw new Error(`recording in the page read no frame${this.lastError ? `: ${this.lastError}` : ''}`);
  }
}
