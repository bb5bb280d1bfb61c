import type { PrecallReport } from '@rtcscope/protocol';

type Devices = PrecallReport['devices'];
export type CameraResult = Devices['camera'];
export type MicrophoneResult = Devices['microphone'];

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What a getUserMedia refusal means for the person in front of the device. */
function refusal(err: unknown, device: 'camera' | 'microphone'): { status: 'denied' | 'missing' | 'error'; error: string } {
  const name = (err as { name?: string } | null)?.name ?? '';
  if (name === 'NotAllowedError' || name === 'SecurityError')
    return { status: 'denied', error: `the browser or the person refused access to the ${device}` };
  if (name === 'NotFoundError' || name === 'OverconstrainedError') return { status: 'missing', error: `no ${device} was found` };
  if (name === 'NotReadableError')
    return { status: 'error', error: `the ${device} is in use by another application, or the system blocked it` };
  return { status: 'error', error: `the ${device} could not be opened (${name || String(err)})` };
}

/** Opens the camera at the size asked and counts the frames that reach the page in a second. */
export async function checkCamera(asked: { width: number; height: number }): Promise<CameraResult> {
  let stream: MediaStream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ video: { width: { ideal: asked.width }, height: { ideal: asked.height } } });
  } catch (err) {
    return { asked, ...refusal(err, 'camera') };
  }
  const [track] = stream.getVideoTracks();
  try {
    const video = document.createElement('video');
    video.muted = true;
    video.playsInline = true;
    video.srcObject = stream;
    await video.play().catch(() => {});
    const fps = await framesInASecond(video, track);
    const settings = track?.getSettings() ?? {};
    const got = { width: video.videoWidth || settings.width || 0, height: video.videoHeight || settings.height || 0 };
    video.srcObject = null;
    return { status: 'ok', ...(track?.label ? { label: track.label.slice(0, 256) } : {}), asked, got, fps };
  } finally {
    for (const t of stream.getTracks()) t.stop();
  }
}

/** Frames painted in one second, where the browser tells (requestVideoFrameCallback); else the track's own rate. */
async function framesInASecond(video: HTMLVideoElement, track: MediaStreamTrack | undefined): Promise<number> {
  if (typeof video.requestVideoFrameCallback !== 'function') {
    await wait(1000);
    return Math.round(track?.getSettings().frameRate ?? 0);
  }
  let frames = 0;
  let counting = true;
  const count = () => {
    frames++;
    if (counting) video.requestVideoFrameCallback(count);
  };
  // The first frame can take a while on a camera waking up: counting starts from it.
  await Promise.race([new Promise<void>((r) => video.requestVideoFrameCallback(() => r())), wait(3000)]);
  video.requestVideoFrameCallback(count);
  await wait(1000);
  counting = false;
  return frames;
}

/** Opens the microphone and measures its loudest moment in a second, dB below full scale. */
export async function checkMicrophone(): Promise<MicrophoneResult> {
  let stream: MediaStream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  } catch (err) {
    return refusal(err, 'microphone');
  }
  const [track] = stream.getAudioTracks();
  const label = track?.label ? { label: track.label.slice(0, 256) } : {};
  const context = new AudioContext();
  try {
    await Promise.race([context.resume(), wait(500)]);
    // A page nobody clicked may not run audio: the level is then unknown, not silence.
    if (context.state !== 'running') return { status: 'ok', ...label };
    const analyser = context.createAnalyser();
    analyser.fftSize = 2048;
    context.createMediaStreamSource(stream).connect(analyser);
    const buffer = new Float32Array(analyser.fftSize);
    let loudest = 0;
    for (let i = 0; i < 20; i++) {
      await wait(50);
      analyser.getFloatTimeDomainData(buffer);
      loudest = Math.max(loudest, Math.sqrt(buffer.reduce((sum, v) => sum + v * v, 0) / buffer.length));
    }
    return { status: 'ok', ...label, levelDb: loudest > 1e-10 ? Math.max(-200, Math.min(0, 20 * Math.log10(loudest))) : -200 };
  } finally {
    void context.close();
    for (const t of stream.getTracks()) t.stop();
  }
}
