import { Enforcer, newModelFromString } from 'casbin';
import { objectMatch, scopeMatch } from './object-match.js';
import modelText from './model.conf';

/** The one Casbin model of Portico (`model.conf`), used by the global enforcer and by every project enforcer. */
export const casbinModel = modelText;

/** A line without a scope (the built-in ones) holds everywhere. */
const withScope = (line: readonly string[]) => (line.length === 4 ? [...line, '*'] : [...line]);

const hasRole = (subjects: ReadonlySet<string>, subject: string) => subjects.has(subject);

/**
 * Casbin's own constructors are async (they load through an adapter). Ours fills the model in memory and
 * registers the functions synchronously, so a policy change is compiled and swapped within one informer
 * event: no request can run between "the cache has the new project" and "the enforcer has its lines".
 */
class MemoryEnforcer extends Enforcer {
  static of(lines: readonly string[][]): MemoryEnforcer {
    const model = newModelFromString(casbinModel);
    for (const line of lines) model.addPolicy('p', 'p', withScope(line));
    const enforcer = new MemoryEnforcer();
    enforcer.setModel(model);
    enforcer.fm.addFunction('hasRole', hasRole);
    enforcer.fm.addFunction('objectMatch', objectMatch);
    enforcer.fm.addFunction('scopeMatch', scopeMatch);
    return enforcer;
  }
}

/** A read-only view of one enforcer: decide, and list its lines (for tests and diagnostics). */
export interface PolicyEnforcer {
  decide(subjects: ReadonlySet<string>, object: string, action: string): boolean;
  lines(): string[][];
}

/**
 * Subjects with a `*, *, allow` line (the Server Admin role) are allowed every request unless a subject of the
 * request has a deny line: that allow line matches whatever is asked and no deny can. Answered from this index,
 * so a Server Admin's list (one question per item) does not run Casbin's matcher once per item.
 */
function grantsEverything(lines: readonly string[][]): (subjects: ReadonlySet<string>) => boolean {
  const universal = new Set(lines.filter(([, obj, act, eft, scope]) => obj === '*' && act === '*' && eft === 'allow' && (scope ?? '*') === '*').map(([sub]) => sub));
  const denying = new Set(lines.filter(([, , , eft]) => eft === 'deny').map(([sub]) => sub));
  if (universal.size === 0) return () => false;
  return (subjects) => {
    let granted = false;
    for (const subject of subjects) {
      if (denying.has(subject)) return false;
      if (universal.has(subject)) granted = true;
    }
    return granted;
  };
}

export function buildEnforcer(lines: readonly string[][]): PolicyEnforcer {
  const enforcer = MemoryEnforcer.of(lines);
  const grantsAll = grantsEverything(lines);
  return {
    decide: (subjects, object, action) => grantsAll(subjects) || enforcer.enforceSync(subjects, object, action),
    lines: () => enforcer.getModel().getPolicy('p', 'p'),
  };
}
