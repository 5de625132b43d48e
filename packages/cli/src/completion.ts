import type { Command } from 'commander';

interface Node {
  /** Space-separated command path below the program: "", "project", "project role". */
  path: string;
  subcommands: string[];
  options: string[];
}

function walk(cmd: Command, path: string, inherited: string[], out: Node[]): void {
  const own = cmd.options.flatMap((o) => [o.long, o.short].filter((f): f is string => !!f));
  const options = [...new Set([...own, ...inherited, '--help'])];
  const subs = cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
  out.push({ path, subcommands: subs.map((c) => c.name()), options });
  // Global options (--server, --token) are accepted after any subcommand too; --version is not.
  const versionFlags = cmd.options.filter((o) => o.long === '--version').flatMap((o) => [o.long, o.short]);
  const passDown = path === '' ? own.filter((f) => !versionFlags.includes(f)) : inherited;
  for (const sub of subs) walk(sub, path ? `${path} ${sub.name()}` : sub.name(), passDown, out);
}

export function commandTree(program: Command): Node[] {
  const nodes: Node[] = [];
  walk(program, '', [], nodes);
  return nodes;
}

const quote = (s: string) => `"${s}"`;

/** Shell functions shared by both scripts: the words at a command path, and whether a word is a subcommand there. */
function helpers(nodes: Node[], name: string): string {
  const words = nodes.map((n) => `    ${quote(n.path)}) echo ${quote([...n.subcommands, ...n.options].join(' '))} ;;`).join('\n');
  const subs = nodes.flatMap((n) => n.subcommands.map((s) => quote(n.path ? `${n.path} ${s}` : s)));
  return `_${name}_words() {
  case "$1" in
${words}
  esac
}

_${name}_is_command() {
  case "$1" in
    ${subs.join('|')}) return 0 ;;
  esac
  return 1
}

_${name}_command_path() {
  local cmdpath="" word candidate
  for word in "$@"; do
    case "$word" in -*) continue ;; esac
    candidate="\${cmdpath:+$cmdpath }$word"
    if _${name}_is_command "$candidate"; then cmdpath="$candidate"; fi
  done
  echo "$cmdpath"
}
`;
}

/** `portico completion bash|zsh`: subcommands and options at every level of the command tree. */
export function completionScript(program: Command, shell: 'bash' | 'zsh'): string {
  const name = program.name();
  const nodes = commandTree(program);
  if (shell === 'bash') {
    return `# ${name} completion for bash. Load it with:  source <(${name} completion bash)
${helpers(nodes, name)}
_${name}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  local cmdpath
  cmdpath="$(_${name}_command_path "\${COMP_WORDS[@]:1:COMP_CWORD-1}")"
  COMPREPLY=( $(compgen -W "$(_${name}_words "$cmdpath")" -- "$cur") )
}

complete -F _${name} ${name}
`;
  }
  return `#compdef ${name}
# ${name} completion for zsh. Load it with:  source <(${name} completion zsh)
# (after compinit), or save it as _${name} in a directory of $fpath.
${helpers(nodes, name)}
_${name}() {
  local cmdpath
  cmdpath="$(_${name}_command_path "\${(@)words[2,CURRENT-1]}")"
  local -a candidates
  candidates=(\${=$(_${name}_words "$cmdpath")})
  compadd -- $candidates
}

if [ "$funcstack[1]" = "_${name}" ]; then
  _${name} "$@"
else
  compdef _${name} ${name}
fi
`;
}
