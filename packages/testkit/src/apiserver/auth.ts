// Authentication by bearer token (a static admin token, ServiceAccount tokens minted by the test)
// and authorization by the RBAC objects stored in the server, as kube's RBAC authorizer evaluates
// them: ClusterRoleBindings grant everywhere, RoleBindings in their namespace.
import { randomBytes } from 'node:crypto';
import { isObject, type JsonObject } from './json.js';

export interface UserInfo {
  username: string;
  groups: string[];
}

export interface RequestAttributes {
  verb: string;
  /** Resource requests: */
  apiGroup?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  namespace?: string;
  /** Non-resource requests (discovery, /version, /openapi): */
  path?: string;
}

export interface PolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames: string[];
  nonResourceURLs: string[];
}

/** A rule as granted to a subject, with where it applies (undefined: every namespace). */
export interface GrantedRule extends PolicyRule {
  namespace: string | undefined;
  /** `ClusterRoleBinding/<name> -> ClusterRole/<name>` */
  via: string;
}

export const ADMIN_USER: UserInfo = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };

export function serviceAccountUser(namespace: string, name: string): UserInfo {
  return {
    username: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
  };
}

/** Bearer tokens -> users. Tokens are random and persisted by the server so a restart keeps them. */
export class TokenAuthenticator {
  private readonly tokens = new Map<string, UserInfo>();

  constructor(entries: Iterable<[string, UserInfo]> = []) {
    for (const [token, user] of entries) this.tokens.set(token, user);
  }

  static newToken(): string {
    return randomBytes(24).toString('base64url');
  }

  add(token: string, user: UserInfo): void {
    this.tokens.set(token, user);
  }

  authenticate(authorization: string | undefined): UserInfo | undefined {
    const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
    return m ? this.tokens.get(m[1]!) : undefined;
  }

  entries(): [string, UserInfo][] {
    return [...this.tokens];
  }
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function rulesOf(role: JsonObject | undefined): PolicyRule[] {
  if (!role || !Array.isArray(role.rules)) return [];
  return role.rules.filter(isObject).map((r) => ({
    verbs: strings(r.verbs),
    apiGroups: strings(r.apiGroups),
    resources: strings(r.resources),
    resourceNames: strings(r.resourceNames),
    nonResourceURLs: strings(r.nonResourceURLs),
  }));
}

function subjectMatches(subject: JsonObject, user: UserInfo, bindingNamespace: string | undefined): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.name === user.username;
    case 'Group':
      return typeof subject.name === 'string' && user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const namespace =
        typeof subject.namespace === 'string' && subject.namespace !== ''
          ? subject.namespace
          : bindingNamespace;
      return user.username === `system:serviceaccount:${namespace}:${String(subject.name)}`;
    }
    default:
      return false;
  }
}

function ruleAllows(rule: PolicyRule, a: RequestAttributes): boolean {
  if (!rule.verbs.includes('*') && !rule.verbs.includes(a.verb)) return false;
  if (a.resource === undefined) {
    const path = a.path ?? '';
    return rule.nonResourceURLs.some(
      (u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))),
    );
  }
  if (!rule.apiGroups.includes('*') && !rule.apiGroups.includes(a.apiGroup ?? '')) return false;
  const wanted = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const resourceOk = rule.resources.some(
    (r) => r === '*' || r === wanted || (a.subresource !== undefined && r === `*/${a.subresource}`),
  );
  if (!resourceOk) return false;
  return rule.resourceNames.length === 0 || (a.name !== undefined && rule.resourceNames.includes(a.name));
}

/** The RBAC objects the authorizer reads (from the server's store). */
export interface RbacSource {
  clusterRoles(): JsonObject[];
  clusterRoleBindings(): JsonObject[];
  roles(): JsonObject[];
  roleBindings(): JsonObject[];
}

function nameOf(obj: JsonObject): string {
  return isObject(obj.metadata) ? String(obj.metadata.name) : '';
}

function namespaceOf(obj: JsonObject): string | undefined {
  return isObject(obj.metadata) && typeof obj.metadata.namespace === 'string'
    ? obj.metadata.namespace
    : undefined;
}

/** Every rule `user` gets through the bindings in `source`. */
export function rulesForUser(source: RbacSource, user: UserInfo): GrantedRule[] {
  const clusterRoles = new Map(source.clusterRoles().map((r) => [nameOf(r), r]));
  const roles = new Map(source.roles().map((r) => [`${namespaceOf(r)}/${nameOf(r)}`, r]));
  const granted: GrantedRule[] = [];
  const bindings = [
    ...source
      .clusterRoleBindings()
      .map((b) => ({ b, ns: undefined as string | undefined, kind: 'ClusterRoleBinding' })),
    ...source.roleBindings().map((b) => ({ b, ns: namespaceOf(b), kind: 'RoleBinding' })),
  ];
  for (const { b, ns, kind } of bindings) {
    const subjects = Array.isArray(b.subjects) ? b.subjects.filter(isObject) : [];
    if (!subjects.some((s) => subjectMatches(s, user, ns))) continue;
    const ref = isObject(b.roleRef) ? b.roleRef : {};
    const role =
      ref.kind === 'ClusterRole'
        ? clusterRoles.get(String(ref.name))
        : kind === 'RoleBinding'
          ? roles.get(`${ns}/${String(ref.name)}`)
          : undefined;
    for (const rule of rulesOf(role)) {
      granted.push({
        ...rule,
        namespace: ns,
        via: `${kind}/${nameOf(b)} -> ${String(ref.kind)}/${String(ref.name)}`,
      });
    }
  }
  return granted;
}

/** Discovery, version, health and openapi: what kube's system:discovery role grants everyone. */
const PUBLIC_PATHS = [
  /^\/api\/?$/,
  /^\/apis(\/[^/]+(\/[^/]+)?)?\/?$/,
  /^\/version\/?$/,
  /^\/openapi\//,
  /^\/(healthz|livez|readyz)/,
];

export function authorize(source: RbacSource, user: UserInfo, a: RequestAttributes): boolean {
  if (user.groups.includes('system:masters')) return true;
  if (a.resource === undefined && PUBLIC_PATHS.some((re) => re.test(a.path ?? ''))) return true;
  return rulesForUser(source, user).some(
    (rule) => (rule.namespace === undefined || rule.namespace === a.namespace) && ruleAllows(rule, a),
  );
}

/** kube's Forbidden message: `nodes "n1" is forbidden: User "x" cannot patch resource "nodes/status" ...`. */
export function forbiddenMessage(user: UserInfo, a: RequestAttributes): string {
  if (a.resource === undefined)
    return `forbidden: User "${user.username}" cannot ${a.verb} path "${a.path ?? ''}"`;
  const qualified = a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource;
  const subject = a.name ? `${qualified} "${a.name}"` : qualified;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  return `${subject} is forbidden: User "${user.username}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup ?? ''}" ${scope}`;
}
