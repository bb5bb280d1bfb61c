import type { PeerPage } from '../browser/peer.js';
import { PageDrain } from './page-drain.js';
import { RECEIVED_TRACK } from './received-track.js';

/**
 * Records in a lab page the audio it receives, as the listener heard it: the decoded track (with what the
 * browser concealed) through Web Audio, an AudioWorklet passing every rendered sample on in 100-ms blocks
 * as 16-bit PCM, each block with its first sample's number in the context's timeline (a ScriptProcessorNode
 * where the page may not load the worklet's module); and the wall time of sample 0, from the context's own
 * mapping of its clock to the page's. Plain JavaScript evaluated in the page, one recorder a page.
 */
const RECORDER = `(() => {
  if (window.__rtcscopeAudio) return;
  const queue = { blocks: [], busyMs: 0 };
  const TAP = \`registerProcessor('rtcscope-tap', class extends AudioWorkletProcessor {
    constructor() { super(); this.block = new Float32Array(sampleRate / 10); this.n = 0; this.first = null; }
    process(inputs) {
      const input = inputs[0] && inputs[0][0];
      for (let k = 0; k < 128; k++) {
        if (this.n === 0) this.first = currentFrame + k;
        this.block[this.n++] = input ? input[k] : 0;
        if (this.n === this.block.length) {
          this.port.postMessage({ first: this.first, samples: this.block }, [this.block.buffer]);
          this.block = new Float32Array(sampleRate / 10);
          this.n = 0;
        }
      }
      return true;
    }
  });\`;
  const base64 = (bytes) => {
    let s = '';
    for (let k = 0; k < bytes.length; k += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(k, k + 0x8000));
    return btoa(s);
  };
  ${RECEIVED_TRACK}
  window.__rtcscopeAudio = {
    async start(rate) {
      const track = await receivedTrack('audio');
      if (!track) throw new Error('no received audio track to record');
      const stream = new MediaStream([track]);
      // Chromium hands a remote track to Web Audio only while a media element plays it.
      const element = document.createElement('audio');
      element.muted = true;
      element.srcObject = stream;
      document.body.append(element);
      void element.play();
      const context = new AudioContext(rate ? { sampleRate: rate } : {});
      // Said at once rather than a call later: what a browser here cannot record.
      await Promise.race([context.resume(), new Promise((done) => setTimeout(done, 5000))]);
      if (context.state !== 'running') {
        void context.close();
        throw new Error('Web Audio did not start in the page: Firefox without an audio device never starts it (install pulseaudio: the lab then gives it a sound server of its own)');
      }
      const take = (first, samples) => {
        const started = performance.now();
        if (queue.zeroAt === undefined) {
          const { contextTime, performanceTime } = context.getOutputTimestamp();
          queue.zeroAt = performance.timeOrigin + performanceTime - contextTime * 1000;
        }
        const pcm = new Int16Array(samples.length);
        for (let k = 0; k < pcm.length; k++) pcm[k] = Math.max(-32768, Math.min(32767, Math.round(samples[k] * 32767)));
        queue.blocks.push({ first, pcm: base64(new Uint8Array(pcm.buffer)) });
        queue.busyMs += performance.now() - started;
      };
      // A module the page's policy refuses may never settle (Firefox): given 3 s, then the fallback.
      const loaded = Promise.race([
        context.audioWorklet.addModule(URL.createObjectURL(new Blob([TAP], { type: 'text/javascript' }))),
        new Promise((_, refuse) => setTimeout(() => refuse(new Error('the worklet module did not load in 3 s')), 3000)),
      ]);
      const tap = await loaded
        .then(() => {
          const node = new AudioWorkletNode(context, 'rtcscope-tap');
          node.port.onmessage = ({ data }) => take(data.first, data.samples);
          return node;
        })
        .catch(() => {
          // The page's Content-Security-Policy forbids blob: scripts (Firefox holds what the lab evaluates to
          // it; Chromium is told to bypass it): a ScriptProcessorNode needs no module. It runs on the page's
          // thread, in blocks of 4096 samples, each numbered by the context time it is played at.
          const node = context.createScriptProcessor(4096, 1, 1);
          node.onaudioprocess = (e) => take(Math.round(e.playbackTime * context.sampleRate), e.inputBuffer.getChannelData(0).slice());
          return node;
        });
      const silent = context.createGain();
      silent.gain.value = 0;
      context.createMediaStreamSource(stream).connect(tap).connect(silent).connect(context.destination);
      queue.rate = context.sampleRate;
    },
    drain() {
      const out = { rate: queue.rate, zeroAt: queue.zeroAt ?? null, blocks: queue.blocks, busyMs: queue.busyMs };
      queue.blocks = [];
      queue.busyMs = 0;
      return out;
    },
  };
})()`;

interface Drained {
  rate: number;
  zeroAt: number | null;
  blocks: { first: number; pcm: string }[];
  busyMs: number;
}

/** The audio one page received, as its listener heard it. Drained twice a second, as VideoRecording is. */
export class AudioRecording {
  /** Samples a second, the page's AudioContext's. */
  rate = 0;
  /** Wall time (epoch ms) of the context's sample 0: sample k was heard at zeroAt + 1000 k / rate. */
  zeroAt: number | null = null;
  /** The page's time spent recording, ms (wall time of that work, so at most its CPU). */
  busyMs = 0;
  private readonly blocks: { first: number; pcm: Int16Array }[] = [];
  private readonly drains: PageDrain<Drained>;

  private constructor(page: PeerPage) {
    this.drains = new PageDrain<Drained>(page, '__rtcscopeAudio', (d) => {
      this.rate = d.rate;
      this.zeroAt ??= d.zeroAt;
      this.busyMs += d.busyMs;
      for (const b of d.blocks) {
        const bytes = Buffer.from(b.pcm, 'base64');
        this.blocks.push({ first: b.first, pcm: new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2) });
      }
    });
  }

  /**
   * Starts recording in `page`: at `rate` samples a second where given (Chromium resamples a track into
   * any context; Firefox refuses a track into a context at another rate than its own), else at the context's own.
   */
  static async start(page: PeerPage, o: { rate?: number } = {}): Promise<AudioRecording> {
    await page.evaluate(RECORDER);
    await page.evaluate(
      (rate) => (window as unknown as { __rtcscopeAudio: { start(rate: number | null): Promise<void> } }).__rtcscopeAudio.start(rate),
      o.rate ?? null,
    );
    return new AudioRecording(page);
  }

  async stop(): Promise<void> {
    await this.drains.stop();
    if (!this.blocks.length || this.zeroAt === null) throw new Error('recording in the page heard no audio block');
  }

  /** Every sample from the context's sample 0 to the last recorded, as floats (none before the recording began: zeros). */
  samples(): Float32Array {
    const last = this.blocks.at(-1)!;
    const out = new Float32Array(last.first + last.pcm.length);
    for (const b of this.blocks) for (let k = 0; k < b.pcm.length; k++) out[b.first + k] = b.pcm[k]! / 32767;
    return out;
  }
}
