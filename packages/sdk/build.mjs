// Builds the SDK as an ES module and as one file for a <script> tag (global `RtcScope`), and the same for the pre-call test.
import { build } from 'esbuild';

const common = {
  entryPoints: ['src/index.ts'],
  bundle: true,
  minify: true,
  target: 'es2022',
  sourcemap: true,
  legalComments: 'none',
};
await build({ ...common, format: 'esm', outfile: 'dist/rtcscope.mjs' });
await build({ ...common, format: 'iife', globalName: 'RtcScope', outfile: 'dist/rtcscope.js' });
// The pre-call test on its own (global `RtcScopePrecall`): pages that only monitor calls stay small.
const precall = { ...common, entryPoints: ['src/precall/index.ts'] };
await build({ ...precall, format: 'esm', outfile: 'dist/rtcscope-precall.mjs' });
await build({ ...precall, format: 'iife', globalName: 'RtcScopePrecall', outfile: 'dist/rtcscope-precall.js' });
