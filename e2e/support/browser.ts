import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from '@playwright/test';

/** Debian's Chromium with a fake camera fed from a y4m file; its profile files stay in `home`. */
export async function launchChromium(y4m: string, home: string): Promise<Browser> {
  for (const d of ['config', 'cache']) mkdirSync(join(home, d), { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
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
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-video-capture=${y4m}`,
      '--disable-background-timer-throttling',
      '--disable-renderer-backgrounding',
      '--disable-backgrounding-occluded-windows',
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
}
