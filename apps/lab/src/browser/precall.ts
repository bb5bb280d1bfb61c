import type { PrecallResult } from '@rtcscope/sdk/precall';
import type { PeerPage } from './peer.js';

type PrecallWindow = { RtcScopePrecall: { runPrecallTest: (o: Record<string, unknown>) => Promise<PrecallResult> } };

/**
 * Runs the SDK's pre-call test in a page as a customer's page would: the script build from the server,
 * on a page of the server's (a secure context, for the camera), with `options` besides the server and key.
 */
export async function runPrecallInPage(
  page: PeerPage,
  server: string,
  ingestKey: string,
  options: Record<string, unknown> = {},
): Promise<PrecallResult> {
  await page.goto(`${server}/test`);
  await page.addScriptTag({ url: `${server}/sdk/rtcscope-precall.js` });
  return (await page.evaluate(
    (arg) => {
      const { server, ingestKey, options } = arg as { server: string; ingestKey: string; options: Record<string, unknown> };
      return (window as unknown as PrecallWindow).RtcScopePrecall.runPrecallTest({ server, ingestKey, ...options });
    },
    { server, ingestKey, options },
  )) as PrecallResult;
}
