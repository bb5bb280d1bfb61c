// Prints one closing line over every runner: "tests: N passed, N failed, N skipped". Exits non-zero
// when anything failed, when a runner left no report, or when a runner reported an error outside tests
// (a failed global setup runs no test and must not pass).
import { existsSync, readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
let skipped = 0;
const [vitestFile, playwrightFile] = process.argv.slice(2);
if (vitestFile && existsSync(vitestFile)) {
  const v = JSON.parse(readFileSync(vitestFile, 'utf8'));
  passed += v.numPassedTests;
  skipped += v.numPendingTests + v.numTodoTests;
  const clean = v.success && v.numTotalTests > 0;
  failed += clean ? v.numFailedTests : Math.max(1, v.numFailedTests);
} else failed += 1;
if (playwrightFile && existsSync(playwrightFile)) {
  const s = JSON.parse(readFileSync(playwrightFile, 'utf8')).stats;
  passed += s.expected + s.flaky;
  failed += s.unexpected;
  skipped += s.skipped;
  if (s.expected + s.flaky === 0) failed += 1;
} else failed += 1;
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
