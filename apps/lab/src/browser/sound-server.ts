import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnTied, stopTied } from '../tied-process.js';

/** Debian's PulseAudio (`apt-get install pulseaudio`), which bench:quality's install script and `npm test` install. */
export const PULSEAUDIO = process.env.PULSEAUDIO_PATH ?? 'pulseaudio';

/**
 * A private PulseAudio whose one sink plays into nothing, for a browser on a host with no sound card:
 * Firefox starts Web Audio only with an audio device, so without one its page can neither play nor
 * record what it receives. Its own folder, socket and no other modules: it touches no one else's sound.
 */
export interface SoundServer {
  /** What PULSE_SERVER is set to for the browser. */
  address: string;
  stop(): void;
}

const READY_MS = 10_000;

export function soundServerInstalled(): boolean {
  try {
    execFileSync(PULSEAUDIO, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export async function startSoundServer(): Promise<SoundServer> {
  // In the temporary folder: a socket's path must stay under 108 bytes, and a run's folder may be deep.
  const dir = mkdtempSync(join(tmpdir(), 'rtcscope-sound-'));
  const socket = join(dir, 'native');
  const log = openSync(join(dir, 'log'), 'w');
  const child = spawnTied(
    PULSEAUDIO,
    [
      '--no-cpu-limit',
      '-n',
      '--daemonize=no',
      '--exit-idle-time=-1',
      '--use-pid-file=no',
      '--disable-shm=yes',
      '--load=module-null-sink sink_name=rtcscope rate=48000',
      `--load=module-native-protocol-unix socket=${socket} auth-anonymous=1`,
    ],
    log,
    // Its home and runtime folders are its own: as root it would otherwise share /root's with whoever else runs one.
    { ...process.env, HOME: dir, XDG_RUNTIME_DIR: dir, PULSE_RUNTIME_PATH: join(dir, 'runtime') },
  );
  closeSync(log);
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const stop = () => {
    if (child.exitCode !== null) return remove();
    child.once('exit', remove);
    stopTied(child);
  };
  const deadline = Date.now() + READY_MS;
  while (!existsSync(socket)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      const said = readFileSync(join(dir, 'log'), 'utf8').trim().split('\n').slice(-3).join(' / ');
      stop();
      throw new Error(`PulseAudio did not start within ${READY_MS / 1000} s: ${said || 'it said nothing'}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { address: `unix:${socket}`, stop };
}
