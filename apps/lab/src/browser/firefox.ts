import { mkdirSync } from 'node:fs';
import type { PeerPage } from './peer.js';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { soundServerInstalled, startSoundServer } from './sound-server.js';

/** Debian's Firefox ESR, which `npm test` installs (Playwright cannot drive it: it needs its own build). */
export const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

/**
 * Headless Firefox driven over WebDriver BiDi, its fake camera and microphone granted without asking, and
 * ICE held to the loopback interface (calls in tests stay on 127.0.0.1). `hears`: where PulseAudio is
 * installed, it plays into a sound server of its own (`startSoundServer`), which ends with it, so that a
 * page hears what it receives through Web Audio, as on a machine with speakers.
 */
export async function launchFirefox(profile: string, { hears = false }: { hears?: boolean } = {}): Promise<Browser> {
  mkdirSync(profile, { recursive: true });
  const sound = hears && soundServerInstalled() ? await startSoundServer() : null;
  const browser = await puppeteer
    .launch({
      browser: 'firefox',
      executablePath: FIREFOX,
      headless: true,
      userDataDir: profile,
      ...(sound ? { env: { ...process.env, PULSE_SERVER: sound.address } } : {}),
      extraPrefsFirefox: {
        'media.navigator.streams.fake': true,
        'media.navigator.permission.disabled': true,
        'media.peerconnection.ice.loopback': true,
        'media.peerconnection.ice.force_interface': 'lo',
        // Host candidates as addresses, not mDNS names that the other side would have to resolve.
        'media.peerconnection.ice.obfuscate_host_addresses': false,
      },
    })
    .catch((err: unknown) => {
      sound?.stop();
      throw err;
    });
  if (sound) browser.once('disconnected', () => sound.stop());
  return browser;
}

/**
 * A Firefox page as the lab drives its pages. The calls are the same; puppeteer takes a waited-for
 * function's options before its argument, and its types are its own, hence the cast.
 */
export function firefoxPeer(page: Page): PeerPage {
  const peer = {
    goto: (url: string) => page.goto(url),
    setContent: (html: string) => page.setContent(html),
    addScriptTag: (o: { url?: string; content?: string }) => page.addScriptTag(o),
    evaluate: (fn: (arg: unknown) => unknown, arg: unknown) => page.evaluate(fn, arg),
    waitForFunction: (fn: (arg: unknown) => unknown, arg: unknown, o: { timeout: number }) => page.waitForFunction(fn, o, arg),
  };
  return peer as unknown as PeerPage;
}
