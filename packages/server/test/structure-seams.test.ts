import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sources, type SourceFile } from './support/sources.js';

// The Enterprise edition reaches core and the server only through their seams (issue "One seam for every
// operation"): the types core gives it, never a downcast to a wider service or an adapter probed for a member it
// may have; handlers typed from their rows. Each rule is an AST walk, and each is shown the pattern it forbids
// first, so a rule that stopped recognising it would fail here instead of passing on anything.

/** Core's behaviour: the exported interfaces of core/src with a method (ports, services, the Portico facade), and those methods. */
function coreBehaviour(): { interfaces: Set<string>; methods: Set<string> } {
  const interfaces = new Set<string>();
  const methods = new Set<string>();
  for (const { file, text } of sources('core/src')) {
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    for (const statement of sf.statements) {
      if (!ts.isInterfaceDeclaration(statement) || !statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
      const callable = statement.members.filter((m) => ts.isMethodSignature(m) || (ts.isPropertySignature(m) && m.type !== undefined && ts.isFunctionTypeNode(m.type)));
      if (callable.length === 0 || /(Options|Deps)$/.test(statement.name.text)) continue;
      interfaces.add(statement.name.text);
      for (const m of callable) if (m.name && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name))) methods.add(m.name.text);
    }
  }
  return { interfaces, methods };
}

const core = coreBehaviour();
/** A variable that holds an adapter or the facade, by the names the code gives them. */
const adapterName = /^(cluster|portico|adapter|kv|keyValue|store)$/i;

const lineOf = (sf: ts.SourceFile, node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
const lastName = (node: ts.Expression): string => (ts.isPropertyAccessExpression(node) ? node.name.text : ts.isIdentifier(node) ? node.text : '');

const parsed = new Map<string, ts.SourceFile>();
const parse = ({ file, text }: SourceFile) => {
  let sf = parsed.get(file);
  if (sf?.text !== text) parsed.set(file, (sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)));
  return sf;
};

/** Every node of the files for which `offends` names a reason, as `file:line reason`. */
function offenders(files: readonly SourceFile[], offends: (node: ts.Node) => string | undefined): string[] {
  const out: string[] = [];
  for (const source of files) {
    const sf = parse(source);
    const file = source.file;
    const visit = (node: ts.Node) => {
      const reason = offends(node);
      if (reason) out.push(`${file}:${lineOf(sf, node)} ${reason}`);
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}

/** `x as CatalogService`, `<Cluster>x`, `as Pick<InstancesService, …>`: a core service or port asserted instead of given. */
function coreDowncast(node: ts.Node): string | undefined {
  if (!ts.isAsExpression(node) && !ts.isTypeAssertionExpression(node)) return undefined;
  const named: string[] = [];
  const collect = (type: ts.Node) => {
    if (ts.isTypeReferenceNode(type) && core.interfaces.has(type.typeName.getText())) named.push(type.typeName.getText());
    if (ts.isImportTypeNode(type) && type.qualifier && core.interfaces.has(type.qualifier.getText())) named.push(type.qualifier.getText());
    ts.forEachChild(type, collect);
  };
  collect(node.type);
  return named.length > 0 ? `asserts ${named.join(', ')}` : undefined;
}

/** `x as unknown as T`: a cast through unknown says nothing the types agree with. */
function castThroughUnknown(node: ts.Node): string | undefined {
  if (!ts.isAsExpression(node) || node.type.kind !== ts.SyntaxKind.UnknownKeyword) return undefined;
  return ts.isAsExpression(node.parent) ? 'as unknown as' : undefined;
}

/** `'addAdmissionWebhook' in x`, `'…' in cluster`, `typeof cluster.m === 'function'`: an adapter probed for what the port says. */
function duckTyping(node: ts.Node): string | undefined {
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.InKeyword) {
    if (ts.isStringLiteral(node.left) && core.methods.has(node.left.text)) return `probes '${node.left.text}' in`;
    if (adapterName.test(lastName(node.right))) return `probes ${node.right.getText()} with in`;
  }
  if (ts.isTypeOfExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
    const compared = ts.isBinaryExpression(node.parent) ? [node.parent.left, node.parent.right].find((side) => side !== node) : undefined;
    const member = node.expression.name.text;
    if (compared && ts.isStringLiteral(compared) && compared.text === 'function') return `typeof ${node.expression.getText()} === 'function'`;
    if (core.methods.has(member) && adapterName.test(lastName(node.expression.expression))) return `typeof ${node.expression.getText()}`;
  }
  return undefined;
}

/** A handler typed by hand: a `handler<…>` helper, `Call<…>`/`RowCall<…>` spelt out, or a params/query/body type beside the rows. */
function handTypedHandler(node: ts.Node): string | undefined {
  if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'handler' && node.typeArguments) return 'handler<…>(…)';
  if (ts.isTypeReferenceNode(node) && ['Call', 'RowCall'].includes(node.typeName.getText()) && node.typeArguments) return `${node.typeName.getText()}<…> spelt by hand`;
  if (ts.isTypeLiteralNode(node) && ts.isTypeAliasDeclaration(node.parent)) {
    const keys = node.members.map((m) => m.name?.getText()).filter(Boolean);
    if (keys.some((k) => k === 'params' || k === 'query' || k === 'body')) return `type ${node.parent.name.text} = { ${keys.join(', ')} }`;
  }
  return undefined;
}

const snippet = (text: string): SourceFile[] => [{ file: 'snippet.ts', text }];
const enterprise = sources('enterprise/src');

describe('the Enterprise edition reaches core and the server through their seams', () => {
  it('each rule recognises the pattern it forbids (and lets the typed form pass)', () => {
    for (const name of ['Cluster', 'CatalogService', 'InstancesService', 'ProjectsService', 'Portico', 'EmbeddedCluster']) expect(core.interfaces.has(name), name).toBe(true);
    expect(core.methods.has('addAdmissionWebhook')).toBe(true);

    expect(offenders(snippet('const c = portico.catalog as CatalogService;'), coreDowncast)).toHaveLength(1);
    expect(offenders(snippet('const i = <InstancesService>portico.instances;'), coreDowncast)).toHaveLength(1);
    expect(offenders(snippet('const k = cluster as Pick<EmbeddedCluster, "addAdmissionWebhook">;'), coreDowncast)).toHaveLength(1);
    expect(offenders(snippet("const p = facade as import('@portico/core').ProjectsService;"), coreDowncast)).toHaveLength(1);
    expect(offenders(snippet('const rows = enterpriseRoutes as readonly EnterpriseRouteDef[];'), coreDowncast)).toEqual([]);

    expect(offenders(snippet('const h = handlers as unknown as Record<string, Handler>;'), castThroughUnknown)).toHaveLength(1);
    expect(offenders(snippet('const v = JSON.parse(text) as unknown;'), castThroughUnknown)).toEqual([]);

    expect(offenders(snippet("if ('addAdmissionWebhook' in cluster) run();"), duckTyping)).toHaveLength(1);
    expect(offenders(snippet("if ('anything' in portico.cluster) run();"), duckTyping)).toHaveLength(1);
    expect(offenders(snippet("if (typeof cluster.addAdmissionWebhook === 'function') run();"), duckTyping)).toHaveLength(1);
    expect(offenders(snippet("if (typeof kv.publish !== 'undefined') run();"), duckTyping)).toHaveLength(1);
    expect(offenders(snippet("if ('erased' in outcome) return outcome.erased; const add = cluster.addAdmissionWebhook?.bind(cluster);"), duckTyping)).toEqual([]);

    expect(offenders(snippet('const h = handler<{ slug: string }>(({ params }) => params.slug);'), handTypedHandler)).toHaveLength(1);
    expect(offenders(snippet('const h = (call: RowCall<typeof row>) => call.params;'), handTypedHandler)).toHaveLength(1);
    expect(offenders(snippet('type ViewCall = { params: { slug: string } };'), handTypedHandler)).toHaveLength(1);
    expect(offenders(snippet('const h = tableHandlers<EnterpriseRouteRow>()({ getView: ({ params }) => params.slug });'), handTypedHandler)).toEqual([]);
  });

  it('reads every source file of enterprise/src', () => {
    expect(enterprise.length).toBeGreaterThan(50);
    expect(enterprise.map((s) => s.file)).toEqual(expect.arrayContaining(['enterprise/src/plugin.ts', 'enterprise/src/compliance/simulator/gatekeeper-simulator.ts']));
  });

  it('no core service or port is downcast (`as CatalogService`, `as Cluster`…): a module gets the type it needs', () => {
    expect(offenders(enterprise, coreDowncast)).toEqual([]);
  });

  it('no cast through unknown (`as unknown as`)', () => {
    expect(offenders(enterprise, castThroughUnknown)).toEqual([]);
  });

  it("no adapter is duck-typed (`'m' in cluster`, `typeof port.m === 'function'`): an optional capability is a member the port declares", () => {
    expect(offenders(enterprise, duckTyping)).toEqual([]);
  });

  it('handlers are typed from their rows: tableHandlers, no handler<…> helper or hand-written call types', () => {
    expect(offenders(enterprise, handTypedHandler)).toEqual([]);
    const handlerFiles = enterprise.filter((s) => s.file.endsWith('/handlers.ts'));
    expect(handlerFiles.length).toBeGreaterThan(0);
    expect(handlerFiles.filter((s) => !/\btableHandlers<EnterpriseRouteRow>\(\)/.test(s.text)).map((s) => s.file)).toEqual([]);
  });
});
