import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The documentation stands on its own: it never sends a reader to a file outside the repository (a path on
 * some developer's machine, a shared folder of the team that wrote it) nor to a file that does not exist.
 * Paths a reader has on their own machine or in a container (`~/.kube/config`, `/etc/portico/oidc/...`) are fine.
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const markdown = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: repoRoot, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && !f.includes('node_modules/'));

// Machine-local roots no reader shares with the author.
const MACHINE_PATH = /(?:^|[\s`'"(=:])(\/(?:work|home|root|Users|tmp|mnt|srv|opt|workspace)\/[^\s`'")]*)/g;
const LINK = /\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;

describe('documentation paths', () => {
  it('covers the README, docs/ and every package README', () => {
    expect(markdown).toContain('README.md');
    expect(markdown.filter((f) => f.startsWith('docs/')).length).toBeGreaterThanOrEqual(5);
    expect(markdown).toContain('packages/client/README.md');
  });

  it.each(markdown)('%s names no file on the author\'s machine', (file) => {
    const text = readFileSync(path.join(repoRoot, file), 'utf8');
    const found = [...text.matchAll(MACHINE_PATH)].map((m) => m[1]);
    expect(found).toEqual([]);
  });

  it.each(markdown)('%s links only to files that exist inside the repository', (file) => {
    const text = readFileSync(path.join(repoRoot, file), 'utf8');
    const broken: string[] = [];
    for (const [, target] of text.matchAll(LINK)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue; // URLs, mail, anchors
      const resolved = path.resolve(repoRoot, path.dirname(file), decodeURIComponent(target.split('#')[0]));
      if (!resolved.startsWith(repoRoot + path.sep) || !existsSync(resolved)) broken.push(target);
    }
    expect(broken).toEqual([]);
  });
});
