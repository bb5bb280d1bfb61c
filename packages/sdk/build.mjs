// Builds the SDK as an ES module and as one file for a <script> tag (global `RtcScope`).
import { build } from 'esbuild';

const common = { entryPoints: ['src/index.ts'], bundle: true, minify: true, target: 'es2020', sourcemap: true, legalComments: 'none' };
await build({ ...common, format: 'esm', outfile: 'dist/rtcscope.mjs' });
await build({ ...common, format: 'iife', globalName: 'RtcScope', outfile: 'dist/rtcscope.js' });
