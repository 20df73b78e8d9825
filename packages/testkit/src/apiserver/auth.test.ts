import { describe, expect, it } from 'vitest';
import {
  ADMIN_USER,
  authorize,
  forbiddenMessage,
  rulesForUser,
  serviceAccountUser,
  TokenAuthenticator,
  type RbacSource,
} from './auth.js';
import type { JsonObject } from './json.js';

const meta = (name: string, namespace?: string) => ({ name, ...(namespace ? { namespace } : {}) });

const clusterRoles: JsonObject[] = [
  {
    metadata: meta('agent'),
    rules: [
      {
        apiGroups: ['network.fabrik.dev'],
        resources: ['vrfs', 'layer2networks'],
        verbs: ['get', 'list', 'watch'],
      },
      { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch'] },
      { apiGroups: [''], resources: ['nodes'], verbs: ['get'], resourceNames: ['node-a'] },
    ],
  },
  { metadata: meta('discovery-extra'), rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }] },
];
const source: RbacSource = {
  clusterRoles: () => clusterRoles,
  clusterRoleBindings: () => [
    {
      metadata: meta('agent'),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'agent' },
      subjects: [{ kind: 'ServiceAccount', name: 'agent', namespace: 'fabrik-system' }],
    },
    {
      metadata: meta('all-sa-metrics'),
      roleRef: { kind: 'ClusterRole', name: 'discovery-extra' },
      subjects: [{ kind: 'Group', name: 'system:serviceaccounts' }],
    },
  ],
  roles: () => [
    {
      metadata: meta('cm', 'fabrik-system'),
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['*'] }],
    },
  ],
  roleBindings: () => [
    {
      metadata: meta('cm', 'fabrik-system'),
      roleRef: { kind: 'Role', name: 'cm' },
      subjects: [{ kind: 'ServiceAccount', name: 'agent' }],
    },
  ],
};

const agent = serviceAccountUser('fabrik-system', 'agent');
const other = serviceAccountUser('default', 'other');

describe('RBAC', () => {
  it.each([
    [agent, { verb: 'watch', apiGroup: 'network.fabrik.dev', resource: 'vrfs' }, true],
    [agent, { verb: 'update', apiGroup: 'network.fabrik.dev', resource: 'vrfs', name: 'red' }, false],
    [agent, { verb: 'patch', apiGroup: '', resource: 'nodes', subresource: 'status', name: 'node-a' }, true],
    [agent, { verb: 'patch', apiGroup: '', resource: 'nodes', name: 'node-a' }, false],
    [agent, { verb: 'get', apiGroup: '', resource: 'nodes', name: 'node-a' }, true],
    [agent, { verb: 'get', apiGroup: '', resource: 'nodes', name: 'node-b' }, false],
    [
      agent,
      { verb: 'delete', apiGroup: '', resource: 'configmaps', name: 'x', namespace: 'fabrik-system' },
      true,
    ],
    [agent, { verb: 'delete', apiGroup: '', resource: 'configmaps', name: 'x', namespace: 'default' }, false],
    [other, { verb: 'get', path: '/metrics' }, true],
    [other, { verb: 'get', path: '/apis/network.fabrik.dev/v1alpha1' }, true],
    [other, { verb: 'list', apiGroup: 'network.fabrik.dev', resource: 'vrfs' }, false],
    [ADMIN_USER, { verb: 'delete', apiGroup: '', resource: 'nodes', name: 'x' }, true],
  ])('%#: %o may %o: %s', (user, attributes, allowed) => {
    expect(authorize(source, user, attributes)).toBe(allowed);
  });

  it('lists what a ServiceAccount is granted and through which binding', () => {
    const rules = rulesForUser(source, agent);
    expect(rules.map((r) => [r.via, r.namespace ?? '*', r.resources.join(','), r.verbs.join(',')])).toEqual([
      ['ClusterRoleBinding/agent -> ClusterRole/agent', '*', 'vrfs,layer2networks', 'get,list,watch'],
      ['ClusterRoleBinding/agent -> ClusterRole/agent', '*', 'nodes/status', 'patch'],
      ['ClusterRoleBinding/agent -> ClusterRole/agent', '*', 'nodes', 'get'],
      ['ClusterRoleBinding/all-sa-metrics -> ClusterRole/discovery-extra', '*', '', 'get'],
      ['RoleBinding/cm -> Role/cm', 'fabrik-system', 'configmaps', '*'],
    ]);
  });

  it('words a denial as kube does', () => {
    expect(
      forbiddenMessage(agent, {
        verb: 'patch',
        apiGroup: '',
        resource: 'nodes',
        subresource: 'status',
        name: 'n1',
      }),
    ).toBe(
      'nodes "n1" is forbidden: User "system:serviceaccount:fabrik-system:agent" cannot patch resource "nodes/status" in API group "" at the cluster scope',
    );
    expect(
      forbiddenMessage(other, {
        verb: 'list',
        apiGroup: 'network.fabrik.dev',
        resource: 'vrfs',
        namespace: 'x',
      }),
    ).toBe(
      'vrfs.network.fabrik.dev is forbidden: User "system:serviceaccount:default:other" cannot list resource "vrfs" in API group "network.fabrik.dev" in the namespace "x"',
    );
  });

  it('authenticates bearer tokens only', () => {
    const tokens = new TokenAuthenticator([['t1', agent]]);
    expect(tokens.authenticate('Bearer t1')).toEqual(agent);
    expect(tokens.authenticate('Bearer t2')).toBeUndefined();
    expect(tokens.authenticate('Basic t1')).toBeUndefined();
    expect(tokens.authenticate(undefined)).toBeUndefined();
  });
});
