import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium } from '@playwright/test';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface ChromiumOptions {
  /** TLS certificates of these public keys are trusted (SHA-256 of the SPKI, base64), e.g. a local TURN server's self-signed one. */
  trustedKeys?: readonly string[];
  /** The machine's own devices instead of the fake camera and microphone: on a server, none at all. */
  realDevices?: boolean;
  /** A WAV file the fake microphone plays in a loop, instead of its beeps. */
  microphone?: string;
}

/** Debian's Chromium with a fake camera fed from a y4m file; its profile files stay in `home`. */
export async function launchChromium(
  y4m: string,
  home: string,
  { trustedKeys = [], realDevices = false, microphone }: ChromiumOptions = {},
): Promise<Browser> {
  for (const d of ['config', 'cache']) mkdirSync(join(home, d), { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_CACHE_HOME: join(home, 'cache') },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--use-fake-ui-for-media-stream',
      ...(realDevices ? [] : ['--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${y4m}`]),
      ...(microphone && !realDevices ? [`--use-file-for-fake-audio-capture=${microphone}`] : []),
      '--disable-background-timer-throttling',
      '--disable-renderer-backgrounding',
      '--disable-backgrounding-occluded-windows',
      '--autoplay-policy=no-user-gesture-required',
      // Calls in tests stay on loopback: gather 127.0.0.1 candidates (see loopbackContext).
      '--allow-loopback-in-peer-connection',
      ...(trustedKeys.length ? [`--ignore-certificate-errors-spki-list=${trustedKeys.join(',')}`] : []),
    ],
  });
}

/**
 * Drops every ICE candidate that is not on 127.0.0.1, in SDP and trickled, so WebRTC media in tests
 * never uses the machine's other addresses. Runs in the page before any of its scripts.
 */
const LOOPBACK_ONLY = `(() => {
  const onLoopback = (c) => !c || / 127\\.0\\.0\\.1 /.test(typeof c === 'string' ? c : c.candidate || '') || !(typeof c === 'string' ? c : c.candidate);
  const strip = (sdp) => sdp.split('\\r\\n').filter((l) => !l.startsWith('a=candidate:') || onLoopback(l)).join('\\r\\n');
  const P = RTCPeerConnection.prototype;
  const setRemote = P.setRemoteDescription;
  P.setRemoteDescription = function (d, ...rest) {
    return setRemote.call(this, d && d.sdp ? { type: d.type, sdp: strip(d.sdp) } : d, ...rest);
  };
  const addCandidate = P.addIceCandidate;
  P.addIceCandidate = function (c, ...rest) {
    return onLoopback(c) ? addCandidate.call(this, c, ...rest) : Promise.resolve();
  };
})();`;

export async function loopbackContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  await context.addInitScript(LOOPBACK_ONLY);
  return context;
}

/**
 * A context for the lab's own peer pages. They stand on a page of the server (for a secure context on
 * its origin) whose Content-Security-Policy is the dashboard's, which forbids evaluating code; the lab
 * drives these pages by evaluating code in them, so their context sets that policy aside.
 */
export function peerContext(browser: Browser): Promise<BrowserContext> {
  return loopbackContext(browser, { bypassCSP: true });
}
