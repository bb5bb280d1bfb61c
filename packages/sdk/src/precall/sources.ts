/**
 * Media for the relay pair that any machine can make: video of moving noise (no encoder can predict it,
 * so it fills whatever rate is asked, where a camera's picture of a still room would not) and a tone.
 */
export class TestSources {
  readonly video: MediaStreamTrack;
  readonly audio: MediaStreamTrack;
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly audioContext: AudioContext;
  private readonly destination: MediaStreamAudioDestinationNode;

  constructor(width = 640, height = 360, fps = 30) {
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    const noise = document.createElement('canvas');
    noise.width = width * 2;
    noise.height = height * 2;
    const pixels = new ImageData(noise.width, noise.height);
    const data = new Uint32Array(pixels.data.buffer);
    // Grey with faint noise: the encoder keeps all of it at a high rate and smooths it away at a low one,
    // so frames shrink to the rate asked (full-scale noise makes frames no quantizer can shrink, and a
    // browser that asks for key frames after a loss is flooded by them).
    const faint = () => 128 + Math.floor(Math.random() * 48) - 24;
    for (let i = 0; i < data.length; i++) data[i] = 0xff000000 | (faint() << 16) | (faint() << 8) | faint();
    noise.getContext('2d')!.putImageData(pixels, 0, 0);
    const context = canvas.getContext('2d')!;
    // A timer, not animation frames: a page in the background still sends.
    this.timer = setInterval(() => context.drawImage(noise, -Math.random() * width, -Math.random() * height), 1000 / fps);
    this.video = canvas.captureStream(fps).getVideoTracks()[0]!;
    this.audioContext = new AudioContext();
    this.destination = this.audioContext.createMediaStreamDestination();
    const tone = this.audioContext.createOscillator();
    tone.frequency.value = 440;
    tone.connect(this.destination);
    tone.start();
    this.audio = this.destination.stream.getAudioTracks()[0]!;
  }

  close(): void {
    clearInterval(this.timer);
    this.video.stop();
    this.audio.stop();
    void this.audioContext.close();
  }
}
