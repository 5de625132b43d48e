import type { Command, Option } from 'commander';

/** Names the CLI can look up to complete an argument. */
export type NameKind = 'projects' | 'rgds' | 'kinds' | 'instances' | 'contexts' | 'accounts';

/** Looks names up: `positional` are the arguments typed so far (an instance name depends on the kind before it). */
type NameLookup = (kind: NameKind, positional: string[]) => Promise<string[]>;

const argumentKinds = new WeakMap<Command, NameKind[]>();

/** Declares what each positional argument of `cmd` names, so TAB can offer real names (like cobra's ValidArgsFunction). */
function completesWith<T extends Command>(cmd: T, ...kinds: NameKind[]): T {
  argumentKinds.set(cmd, kinds);
  return cmd;
}

/** What the positional arguments of each command name, by command path. */
const argumentNames: Record<string, NameKind[]> = {
  'context use': ['contexts'],
  'context delete': ['contexts'],
  'context rename': ['contexts'],
  'account delete': ['accounts'],
  'rgd get': ['rgds'],
  'instance create': ['kinds'],
  'instance get': ['kinds', 'instances'],
  'instance delete': ['kinds', 'instances'],
  'instance patch': ['kinds', 'instances'],
  'instance edit': ['kinds', 'instances'],
  ...Object.fromEntries(
    ['get', 'delete', 'namespaces', 'update', 'add-destination', 'remove-destination', 'role bindings', 'role bind', 'role unbind', 'role change',
      'role create', 'role delete', 'role add-policy', 'role remove-policy'].map((c) => [`project ${c}`, ['projects'] as NameKind[]]),
  ),
};

/** Marks every command of the table above; a path that no longer exists is a mistake worth failing on. */
export function declareArgumentNames(program: Command): void {
  for (const [path, kinds] of Object.entries(argumentNames)) {
    let cmd: Command | undefined = program;
    for (const word of path.split(' ')) cmd = cmd?.commands.find((c) => c.name() === word);
    if (!cmd) throw new Error(`completion: no command "${path}"`);
    completesWith(cmd, ...kinds);
  }
}

const hidden = (c: Command) => (c as unknown as { _hidden?: boolean })._hidden === true;
const flagsOf = (o: Option) => [o.long, o.short].filter((f): f is string => !!f);
const takesValue = (o: Option) => o.required || o.optional;

/** The options a word may be at `cmd`: its own and those of every command above it but `--version`. */
function optionsAt(cmd: Command): Option[] {
  const own = [...cmd.options];
  for (let up = cmd.parent; up; up = up.parent) own.push(...up.options.filter((o) => o.long !== '--version'));
  return own;
}

/** Walks `words` (what was typed before the current word) down the command tree. */
function locate(program: Command, words: string[]) {
  let cmd = program;
  const positional: string[] = [];
  let pendingOption: Option | undefined;
  for (const word of words) {
    if (pendingOption) {
      pendingOption = undefined;
      continue;
    }
    if (word.startsWith('-')) {
      const option = optionsAt(cmd).find((o) => flagsOf(o).includes(word.split('=')[0]));
      if (option && takesValue(option) && !word.includes('=')) pendingOption = option;
      continue;
    }
    const sub = positional.length === 0 ? cmd.commands.find((c) => c.name() === word || c.aliases().includes(word)) : undefined;
    if (sub) cmd = sub;
    else positional.push(word);
  }
  return { cmd, positional, pendingOption };
}

/**
 * What TAB offers after `words` for the word being typed (`current`): subcommands, options (their choices after
 * one that takes a value), or the names the argument at that position stands for. Every shell script calls
 * this through `portico __complete`, so the three shells complete the same way.
 */
export async function completionCandidates(program: Command, words: string[], current: string, lookup: NameLookup): Promise<string[]> {
  const { cmd, positional, pendingOption } = locate(program, words);
  let candidates: string[] = [];
  if (pendingOption) {
    if (pendingOption.argChoices) candidates = pendingOption.argChoices;
    else if (pendingOption.long === '--project') candidates = await lookup('projects', []);
  } else if (current.startsWith('-')) {
    candidates = [...optionsAt(cmd).flatMap(flagsOf), '--help'];
  } else {
    const subs = cmd.commands.filter((c) => !hidden(c)).map((c) => c.name());
    const kind = argumentKinds.get(cmd)?.[positional.length];
    if (subs.length && positional.length === 0) candidates = subs;
    else if (kind) candidates = await lookup(kind, positional);
  }
  return [...new Set(candidates)].filter((c) => c.startsWith(current)).sort();
}

/** `portico completion bash|zsh|fish`: a small script handing every TAB to `portico __complete`. */
export function completionScript(program: Command, shell: 'bash' | 'zsh' | 'fish'): string {
  const name = program.name();
  if (shell === 'bash') {
    return `# ${name} completion for bash. Load it with:  source <(${name} completion bash)
_${name}() {
  local IFS=$'\\n'
  COMPREPLY=( $(${name} __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) )
}
complete -F _${name} ${name}
`;
  }
  if (shell === 'zsh') {
    return `#compdef ${name}
# ${name} completion for zsh. Load it with:  source <(${name} completion zsh)
# (after compinit), or save it as _${name} in a directory of $fpath.
_${name}() {
  local -a candidates
  candidates=("\${(@f)$(${name} __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  compadd -- \${candidates:#}
}

if [ "$funcstack[1]" = "_${name}" ]; then
  _${name} "$@"
else
  compdef _${name} ${name}
fi
`;
  }
  return `# ${name} completion for fish. Load it with:  ${name} completion fish | source
# or save it as ~/.config/fish/completions/${name}.fish
function __${name}_complete
    set -l words (commandline -opc)
    set -e words[1]
    ${name} __complete $words (commandline -ct) 2>/dev/null
end
complete -c ${name} -f -a '(__${name}_complete)'
`;
}
