import type { KubeObject } from '@portico/core';
import { describe, expect, it } from 'vitest';
import { compileConstraint, createConstraintSet } from '../../src/compliance/constraint-set.js';
import { policyLibrary } from '../../src/compliance/policies/library.js';
import { parseQuantity } from '../../src/compliance/policies/quantity.js';
import { renderResources } from '../../src/compliance/render.js';

const deployment = (containers: object[], labels: Record<string, string> = {}, namespace = 'dev'): KubeObject => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace, labels }, spec: { template: { spec: { containers } } },
});
const constraint = (kind: string, spec: object, name = 'c'): KubeObject => ({ apiVersion: 'constraints.gatekeeper.sh/v1beta1', kind, metadata: { name }, spec });

describe('the native template library', () => {
  it('K8sRequiredLabels: missing keys and values outside allowedRegex', () => {
    const check = (params: Record<string, unknown>, obj: KubeObject) => policyLibrary.K8sRequiredLabels!(params)(obj);
    expect(check({ labels: [{ key: 'owner' }, { key: 'team' }] }, deployment([], { team: 'a' }))).toEqual(['you must provide labels: ["owner"]']);
    expect(check({ labels: [{ key: 'env', allowedRegex: '^(dev|prod)$' }] }, deployment([], { env: 'qa' }))).toEqual(['Label <env: qa> does not satisfy allowed regex: ^(dev|prod)$']);
    expect(check({ labels: ['owner'] }, deployment([], { owner: 'x' }))).toEqual([]);
  });

  it('K8sAllowedRepos: every container, init containers too, by prefix', () => {
    const obj: KubeObject = { ...deployment([{ name: 'app', image: 'registry.example.com/app:1' }, { name: 'side', image: 'docker.io/nginx' }]) };
    obj.spec.template.spec.initContainers = [{ name: 'init', image: 'quay.io/x' }];
    expect(policyLibrary.K8sAllowedRepos!({ repos: ['registry.example.com/'] })(obj)).toEqual([
      'container <init> has an invalid image repo <quay.io/x>, allowed repos are ["registry.example.com/"]',
      'container <side> has an invalid image repo <docker.io/nginx>, allowed repos are ["registry.example.com/"]',
    ]);
  });

  it('K8sContainerLimits: missing limits and limits above the maximum, in Kubernetes quantities', () => {
    const check = (params: Record<string, unknown>, obj: KubeObject) => policyLibrary.K8sContainerLimits!(params)(obj);
    expect(check({ cpu: '1', memory: '1Gi' }, deployment([{ name: 'a', resources: { limits: { cpu: '500m', memory: '512Mi' } } }]))).toEqual([]);
    expect(check({ cpu: '1', memory: '1Gi' }, deployment([{ name: 'a', resources: { limits: { cpu: '2', memory: '2Gi' } } }, { name: 'b' }]))).toEqual([
      'container <a> cpu limit <2> is higher than the maximum allowed of <1>',
      'container <a> memory limit <2Gi> is higher than the maximum allowed of <1Gi>',
      'container <b> has no cpu limit',
      'container <b> has no memory limit',
    ]);
    expect([parseQuantity('250m'), parseQuantity('1Ki'), parseQuantity('1e3'), parseQuantity('lots')]).toEqual([0.25, 1024, 1000, undefined]);
  });

  it('K8sBlockNodePort: Services of type NodePort only', () => {
    const service = (type: string): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'dev' }, spec: { type } });
    expect(policyLibrary.K8sBlockNodePort!({})(service('NodePort'))).toEqual(['User is not allowed to create service of type NodePort']);
    expect(policyLibrary.K8sBlockNodePort!({})(service('ClusterIP'))).toEqual([]);
  });
});

describe('constraint matching', () => {
  it('selects by group and kind, namespaces (prefix patterns), excluded namespaces and scope', () => {
    const set = createConstraintSet([
      compileConstraint(constraint('K8sRequiredLabels', { match: { kinds: [{ apiGroups: ['apps'], kinds: ['Deployment'] }], namespaces: ['team-*'] }, parameters: { labels: ['owner'] } }, 'teams'))!,
      compileConstraint(constraint('K8sRequiredLabels', { match: { kinds: [{ apiGroups: [''], kinds: ['Namespace'] }] }, parameters: { labels: ['env'] } }, 'namespaces'))!,
      compileConstraint(constraint('K8sRequiredLabels', { match: { kinds: [{ apiGroups: ['*'], kinds: ['Deployment'] }], excludedNamespaces: ['team-b'] }, parameters: { labels: ['tier'] } }, 'tiers'))!,
    ]);
    const names = (obj: KubeObject) => set.judge(obj).map((f) => f.constraint.name).sort();
    expect(names(deployment([], {}, 'team-a'))).toEqual(['teams', 'tiers']);
    expect(names(deployment([], {}, 'team-b'))).toEqual(['teams']);
    expect(names(deployment([], {}, 'dev'))).toEqual(['tiers']);
    expect(names({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dev' } })).toEqual(['namespaces']);
    expect(names({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'team-a' } })).toEqual([]);
    expect(compileConstraint(constraint('SomeRegoOnlyKind', {}))).toBeUndefined();
  });
});

describe('rendering an RGD for an instance', () => {
  it('fills ${schema.…} from the instance, whole values keep their type, richer expressions stay as written', () => {
    const rgd: KubeObject = {
      apiVersion: 'kro.run/v1alpha1', kind: 'ResourceGraphDefinition', metadata: { name: 'app' },
      spec: {
        resources: [
          { id: 'deployment', template: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: '${schema.metadata.name}-web', labels: '${schema.spec.labels}' }, spec: { replicas: '${schema.spec.replicas}', template: { spec: { containers: [{ name: 'app', image: 'reg/${schema.spec.image}' }] } } } } },
          { id: 'service', template: { apiVersion: 'v1', kind: 'Service', metadata: { name: '${deployment.metadata.name}' }, spec: { type: 'NodePort' } } },
          { id: 'external', externalRef: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } },
          { id: 'each', forEach: [{ item: '${schema.spec.list}' }], template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'y' } } },
        ],
      },
    };
    const instance: KubeObject = { apiVersion: 'kro.run/v1alpha1', kind: 'App', metadata: { name: 'shop', namespace: 'dev' }, spec: { labels: { owner: 'me' }, replicas: 3, image: 'shop:1' } };
    const rendered = renderResources(rgd, instance);
    expect(rendered.map((r) => r.id)).toEqual(['deployment', 'service']);
    expect(rendered[0]!.object).toMatchObject({ metadata: { name: 'shop-web', namespace: 'dev', labels: { owner: 'me' } }, spec: { replicas: 3, template: { spec: { containers: [{ image: 'reg/shop:1' }] } } } });
    expect(rendered[1]!.object.metadata).toMatchObject({ name: 'shop-service', namespace: 'dev' });
  });
});
