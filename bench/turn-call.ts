// A call the lab runner cannot make: two Chromium peers whose only path is through a TURN server
// (Debian's coturn) on 127.0.0.1, as a call behind a strict firewall runs. Used by bench:diagnosis (the
// relayed-path case) and bench:clean (a clean relayed call).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectPeers, hangUp, launchChromium, openPeer, peerContext, writeY4m } from '@rtcscope/lab';
import { freePort } from '@rtcscope/server/testing';

export const TURN = '/usr/bin/turnserver';

/** Why a relayed call cannot run here, or null when it can. */
export const turnMissing = (): string | null => (existsSync(TURN) ? null : `needs coturn at ${TURN} (apt-get install coturn)`);

export interface RelayedCall {
  server: string;
  ingestKey: string;
  callId: string;
  seconds: number;
  video: { width: number; height: number; fps: number };
}

/** Runs the call for `seconds` from its first connection attempt (the path is relayed from then) and hangs up. */
export async function relayedCall(c: RelayedCall): Promise<{ callId: string; startedAt: number }> {
  const port = await freePort();
  const turn = spawn(
    TURN,
    [
      '-n',
      '--listening-ip=127.0.0.1',
      '--relay-ip=127.0.0.1',
      `--listening-port=${port}`,
      '--min-port=49160',
      '--max-port=49200',
      '--lt-cred-mech',
      '--user=bench:bench',
      '--realm=rtcscope',
      '--no-tls',
      '--no-dtls',
      '--no-cli',
      '--allow-loopback-peers',
    ],
    { stdio: 'ignore' },
  );
  const home = mkdtempSync(join(tmpdir(), 'rtcscope-bench-relay-'));
  try {
    const y4m = join(home, 'camera.y4m');
    await writeY4m(y4m, { ...c.video, seconds: 2 });
    const browser = await launchChromium(y4m, join(home, 'home'));
    try {
      const pages = await Promise.all([0, 1].map(async () => (await peerContext(browser)).newPage()));
      for (const [k, page] of pages.entries())
        await openPeer(page, { server: c.server, ingestKey: c.ingestKey, callId: c.callId, participantId: `p${k}`, video: c.video });
      const startedAt = Date.now();
      await connectPeers(pages[0]!, pages[1]!, {
        rtc: {
          iceServers: [{ urls: `turn:127.0.0.1:${port}?transport=udp`, username: 'bench', credential: 'bench' }],
          iceTransportPolicy: 'relay',
        },
      });
      await new Promise((r) => setTimeout(r, c.seconds * 1000));
      await Promise.all(pages.map((p) => hangUp(p)));
      return { callId: c.callId, startedAt };
    } finally {
      await browser.close();
    }
  } finally {
    turn.kill();
    rmSync(home, { recursive: true, force: true });
  }
}
