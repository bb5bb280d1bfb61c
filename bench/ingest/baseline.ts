import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Another commit of this repository, runnable beside the working tree: its files (`git archive`) with
 * the working tree's installed dependencies, so one run of the benchmark measures both builds on the
 * same machine at the same moment. Each workspace package's `node_modules` is copied as the links pnpm
 * made (the workspace's own packages are relative links, so they resolve to the baseline's sources);
 * the store behind them (`node_modules/.pnpm`) is shared. The Prisma client is generated for the
 * baseline's schema.
 */
export function checkoutBaseline(repo: string, ref: string, into: string): string {
  const commit = execFileSync('git', ['-C', repo, 'rev-parse', '--verify', `${ref}^{commit}`], { encoding: 'utf8' }).trim();
  mkdirSync(into, { recursive: true });
  execFileSync('sh', ['-c', `git -C "$0" archive "$1" | tar -x -C "$2"`, repo, commit, into]);
  for (const pkg of workspacePackages(into)) {
    const installed = join(repo, pkg, 'node_modules');
    if (!existsSync(installed)) continue;
    if (pkg !== '.') {
      cpSync(installed, join(into, pkg, 'node_modules'), { recursive: true, verbatimSymlinks: true });
      continue;
    }
    mkdirSync(join(into, 'node_modules'));
    for (const entry of readdirSync(installed)) {
      if (entry === '.pnpm') symlinkSync(join(installed, '.pnpm'), join(into, 'node_modules/.pnpm'));
      else cpSync(join(installed, entry), join(into, 'node_modules', entry), { recursive: true, verbatimSymlinks: true });
    }
  }
  execFileSync(process.execPath, ['scripts/generate-prisma.mjs'], { cwd: join(into, 'apps/server'), stdio: 'ignore' });
  return commit;
}

/** The workspace's package folders, relative to its root (the root itself as `.`). */
function workspacePackages(root: string): string[] {
  const globs = [...readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8').matchAll(/^\s*-\s*['"]?([^'"\n]+?)\/\*['"]?\s*$/gm)].map(
    (m) => m[1]!,
  );
  const packages = globs.flatMap((dir) =>
    existsSync(join(root, dir))
      ? readdirSync(join(root, dir), { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => `${dir}/${d.name}`)
      : [],
  );
  return ['.', ...packages, ...['bench', 'e2e'].filter((d) => existsSync(join(root, d, 'package.json')))];
}
