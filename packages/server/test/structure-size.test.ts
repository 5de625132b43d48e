import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { allSources as sources } from './support/sources.js';

// Small pieces: a source file holds one job, a function one phase of it. The caps are the issue's
// ("One seam for every operation"): split by phase or concern, the way kro's controller is split by file.
const MAX_FILE_LINES = 350;
const MAX_FUNCTION_LINES = 200;

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** Lines of a function-like node, from the line of its first token to the line of its last, closures included. */
function functionLines(sf: ts.SourceFile, node: ts.Node): number {
  const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
  const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
  return last - first + 1;
}

function nameOf(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name && (ts.isIdentifier(named.name) || ts.isStringLiteral(named.name))) return named.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return '<anonymous>';
}

function oversizedFiles(max = MAX_FILE_LINES): string[] {
  return sources()
    .map((s) => ({ file: s.file, lines: lineCount(s.text) }))
    .filter((s) => s.lines > max)
    .map((s) => `${s.file} (${s.lines} lines)`);
}

function oversizedFunctions(max = MAX_FUNCTION_LINES): string[] {
  const out: string[] = [];
  for (const { file, text } of sources()) {
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
        const lines = functionLines(sf, node);
        if (lines > max) {
          const at = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
          out.push(`${file}:${at} ${nameOf(node)} (${lines} lines)`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}

describe('small pieces', () => {
  it(`no source file over ${MAX_FILE_LINES} lines`, () => {
    expect(oversizedFiles()).toEqual([]);
  });

  it(`no function over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(oversizedFunctions()).toEqual([]);
  });

  it('the caps read the sources of every package, the Enterprise edition\'s included', () => {
    const read = new Set(sources().map((s) => s.file.split('/')[0]));
    expect([...read].sort()).toEqual(['api', 'cli', 'client', 'core', 'enterprise', 'server']);
    expect(sources().some((s) => s.file === 'enterprise/src/compliance/simulator/gatekeeper-simulator.ts')).toBe(true);
  });
});
