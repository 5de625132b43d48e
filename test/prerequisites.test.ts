import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// `npm test` passes with exactly the prerequisites the README lists (issue 40, acceptance 5): everything .ci/run
// installs for the tests is named in the README's prerequisites, so a newcomer following only the README has it.

const read = (path: string) => readFileSync(fileURLToPath(new URL(`../${path}`, import.meta.url)), 'utf8');

/** The Debian packages .ci/run installs: `apt_install a b`, and the tools of its `for tool in …` loops. */
function installedByCi(script: string): string[] {
  const direct = [...script.matchAll(/apt_install ([^;\n"]+?)(?:;|\n|$)/g)].flatMap((m) => m[1].trim().split(/\s+/));
  const looped = [...script.matchAll(/for tool in ([^;]+);/g)].flatMap((m) => m[1].trim().split(/\s+/));
  return [...new Set([...direct, ...looped])];
}

/** How the README names what a package gives. */
const readmeName: Record<string, string> = { 'redis-server': 'Redis', postgresql: 'PostgreSQL', 'golang-go': 'Go' };

describe('the README lists every prerequisite of npm test', () => {
  const prerequisites = /\nPrerequisites:[\s\S]*?\n\n`bash \.ci\/run`/.exec(read('README.md'))?.[0] ?? '';

  it('has a prerequisites list at the top, next to the commands', () => {
    expect(prerequisites).toContain('Node.js ≥ 20.19');
  });

  it('names each package .ci/run installs', () => {
    const packages = installedByCi(read('.ci/run'));
    expect(packages).toEqual(expect.arrayContaining(['redis-server', 'postgresql', 'git', 'openssh-server', 'zsh', 'fish', 'tmux', 'golang-go']));
    const missing = packages.filter((p) => !prerequisites.includes(readmeName[p] ?? p));
    expect(missing).toEqual([]);
  });
});
