import { Enforcer, newModelFromString } from 'casbin';
import { objectMatch } from './object-match.js';

/**
 * The one Casbin model of Portico, used by the global enforcer and by every project enforcer.
 *
 * The request subject is not a string but the Set of every subject the actor speaks for in that enforcer
 * (its role subjects there, from the binding index). `hasRole(r.sub, p.sub)` takes the place of `g`, so a
 * single enforce call sees the lines of all the actor's roles at once and a deny from any of them wins over
 * an allow from any other (enforcing per subject and OR-ing the answers would lose that).
 */
export const casbinModel = `
[request_definition]
r = sub, obj, act

[policy_definition]
p = sub, obj, act, eft

[policy_effect]
e = some(where (p.eft == allow)) && !some(where (p.eft == deny))

[matchers]
m = hasRole(r.sub, p.sub) && objectMatch(r.obj, p.obj) && (p.act == "*" || r.act == p.act)
`;

const hasRole = (subjects: ReadonlySet<string>, subject: string) => subjects.has(subject);

/**
 * Casbin's own constructors are async (they load through an adapter). Ours fills the model in memory and
 * registers the functions synchronously, so a policy change is compiled and swapped within one informer
 * event: no request can run between "the cache has the new project" and "the enforcer has its lines".
 */
class MemoryEnforcer extends Enforcer {
  static of(lines: readonly string[][]): MemoryEnforcer {
    const model = newModelFromString(casbinModel);
    for (const line of lines) model.addPolicy('p', 'p', [...line]);
    const enforcer = new MemoryEnforcer();
    enforcer.setModel(model);
    enforcer.fm.addFunction('hasRole', hasRole);
    enforcer.fm.addFunction('objectMatch', objectMatch);
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
  const universal = new Set(lines.filter(([, obj, act, eft]) => obj === '*' && act === '*' && eft === 'allow').map(([sub]) => sub));
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
