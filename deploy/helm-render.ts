import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

/**
 * The Helm chart rendered as `helm template` would (there is no helm binary here): deploy/helm/render is Go's
 * text/template with the sprig library, which is what Helm's engine is, plus Helm's include/tpl/required/toYaml.
 * It needs Go and Debian's sprig and ghodss/yaml packages, which the README lists and .ci/run installs.
 */

export const deployDir = path.dirname(fileURLToPath(import.meta.url));
export const chartDir = path.join(deployDir, 'helm', 'portico');

export type Manifest = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; [k: string]: any };

/** Builds the renderer into a fresh directory and answers its path. */
export function buildRenderer(): string {
  const renderer = path.join(mkdtempSync(path.join(tmpdir(), 'portico-helm-render-')), 'render');
  execFileSync('go', ['build', '-o', renderer, '.'], {
    cwd: path.join(deployDir, 'helm', 'render'),
    env: { ...process.env, GO111MODULE: 'off', GOPATH: process.env.PORTICO_GOPATH ?? '/usr/share/gocode', GOFLAGS: '' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return renderer;
}

/** The chart's objects with the given values files (paths) laid over values.yaml, in order. */
export function renderChart(renderer: string, valuesFiles: string[] = []): Manifest[] {
  const out = execFileSync(renderer, [chartDir, ...valuesFiles], { encoding: 'utf8' });
  return parseAllDocuments(out).flatMap((d) => {
    if (d.errors.length) throw new Error(`rendered YAML does not parse: ${d.errors[0].message}\n${out}`);
    const value = d.toJSON();
    return value ? [value as Manifest] : [];
  });
}
