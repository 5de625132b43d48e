import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt, runCli, type CliUser } from './run-cli.js';

// docs/cli.md against the BUILT binary's own --help: every command it offers has a section, and every option
// of a command appears in that command's section.

const docsPath = fileURLToPath(new URL('../../../../docs/cli.md', import.meta.url));

interface HelpPage {
  path: string[];
  subcommands: string[];
  /** Each option as its flags, e.g. ['-o', '--output']. */
  options: string[][];
}

/** Names listed under "Commands:" and flags under "Options:" of one `--help` page. */
function parseHelp(path: string[], text: string): HelpPage {
  const section = (title: string) => {
    const start = text.indexOf(`\n${title}:\n`);
    if (start < 0) return [];
    const rest = text.slice(start + title.length + 3);
    const end = rest.search(/\n\S/);
    return (end < 0 ? rest : rest.slice(0, end)).split('\n').filter((l) => /^ {2}\S/.test(l));
  };
  const subcommands = section('Commands')
    .map((l) => l.trim().split(/\s+/)[0])
    .filter((name) => name !== 'help');
  const options = section('Options').map((l) => l.trim().split(/\s{2,}/)[0].split(/,\s*/).map((f) => f.split(' ')[0]));
  return { path, subcommands, options };
}

let user: CliUser;
const pages: HelpPage[] = [];
let docs: string;

beforeAll(async () => {
  assertCliBuilt();
  const home = await mkdtemp(join(tmpdir(), 'portico-docs-'));
  user = { home, configFile: join(home, 'config.yaml') };
  docs = await readFile(docsPath, 'utf8');
  let level: string[][] = [[]];
  while (level.length) {
    const found = await Promise.all(level.map(async (path) => parseHelp(path, (await runCli(user, [...path, '--help'])).stdout)));
    pages.push(...found);
    level = found.flatMap((p) => p.subcommands.map((s) => [...p.path, s]));
  }
});

afterAll(async () => {
  if (user) await rm(user.home, { recursive: true, force: true });
});

/** The text of the `### \`portico <path> …\`` section, up to the next heading. */
function docSection(path: string[]): string | undefined {
  const heading = `### \`portico ${path.join(' ')}`;
  const lines = docs.split('\n');
  const start = lines.findIndex((l) => l === `${heading}\`` || l.startsWith(`${heading} `) || l.startsWith(`${heading}\` `));
  if (start < 0) return undefined;
  const end = lines.findIndex((l, i) => i > start && /^#{1,3} /.test(l));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

describe('docs/cli.md matches portico --help', () => {
  it('walks the whole command tree', () => {
    const commands = pages.map((p) => p.path.join(' '));
    expect(commands).toEqual(expect.arrayContaining(['login', 'instance create', 'project role change', 'completion']));
  });

  it('documents every command that does something (groups only list their subcommands)', () => {
    const undocumented = pages.filter((p) => p.path.length > 0 && p.subcommands.length === 0 && !docSection(p.path)).map((p) => p.path.join(' '));
    expect(undocumented).toEqual([]);
  });

  it('mentions every option of every command in its section, and the global ones under Global options', () => {
    // Options every command with -o takes (withOutput) are described once, under Conventions, as the formats are.
    const everyReadCommand = ['--no-headers'];
    const conventions = docs.slice(docs.indexOf('## Conventions'), docs.indexOf('## Exit codes'));
    const missing: string[] = [];
    for (const page of pages) {
      const section = page.path.length === 0 ? docs.slice(docs.indexOf('### Global options'), docs.indexOf('### `portico login')) : docSection(page.path);
      if (section === undefined) continue; // a group: its subcommands are checked one by one
      for (const flags of page.options) {
        if (flags.includes('--help')) continue;
        const shared = flags.some((f) => everyReadCommand.includes(f)) && page.options.some((o) => o.includes('--output'));
        if (!flags.some((f) => new RegExp(`(^|[\\s\`(\\[|])${f.replace(/[-]/g, '\\-')}(?![\\w-])`).test(shared ? conventions : section))) {
          missing.push(`portico ${page.path.join(' ')} ${flags.join(', ')}`.replace(/ {2}/, ' '));
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('shows an example invocation of every command', () => {
    const withoutExample = pages
      .filter((p) => p.path.length > 0 && p.subcommands.length === 0)
      .filter((p) => !new RegExp(`(\\$ |\\| |^|\\()portico ${p.path.join(' ')}\\b`, 'm').test(docSection(p.path)?.split('\n').slice(1).join('\n') ?? ''))
      .map((p) => p.path.join(' '));
    expect(withoutExample).toEqual([]);
  });
});
