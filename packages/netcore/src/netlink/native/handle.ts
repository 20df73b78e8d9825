import { z } from 'zod';
import { MacAddress } from '@fabrik/api';
import { LinkNotFoundError } from '../errors.js';
import { addrArgs, fdbArgs, neighArgs, routeArgs } from '../encode.js';
import { NetlinkBatchOpsSchema, batchOpArgs, batchOpLink, type NetlinkBatchOp } from '../batch.js';
import { createRunner } from '../exec.js';
import { checkInterfaceName, checkSysctlDevice } from '../names.js';
import { validate } from '../validate.js';
import {
  BridgePortFlagsSchema,
  LinkSpecSchema,
  bridgePortArgs,
  linkAddArgs,
  type LinkSpec,
} from '../links/index.js';
import {
  AddressSpecSchema,
  FdbSpecSchema,
  InterfaceSysctlsSchema,
  NeighbourSpecSchema,
  RouteSpecSchema,
} from '../objects.js';
import { dumpNamespace } from '../observe.js';
import { parseDesiredState } from '../desired.js';
import { observeScopeOf, plan as makePlan } from '../plan.js';
import { journaled, type Netlink, type NetlinkOptions } from '../netlink-api.js';
import {
  linkAddRequest,
  linkAddrGenModeRequest,
  linkDelRequest,
  linkRenameRequest,
  linkSetNetnsRequest,
  linkSetRequest,
  portSetRequest,
  type NativeRequest,
} from './encode-link.js';
import { addrRequest, fdbRequest, neighRequest, routeRequest, type Verb } from './encode-objects.js';
import { applyPlanNative } from './apply.js';
import { setSysctls } from './sysctl.js';
import { monitorNative } from './monitor.js';
import { observeLinks, observeNative, observeRoutes } from './observe.js';
import { NativeSession, withSession, type RequestContext } from './session.js';

/**
 * The handle over rtnetlink in this process (koffi -> libc): every verb is one or a few
 * messages on a socket opened in the handle's namespace for the span of the call, no process.
 * Same contract, same typed errors, as the iproute2 handle; errors name the equivalent iproute2
 * command. `dump` alone still runs iproute2: its output is iproute2's text, what fixtures record.
 */
export function createNativeNetlink(options: NetlinkOptions = {}): Netlink {
  const netns = options.netns;
  const name = (n: string, field = 'name'): string => checkInterfaceName(n, field);
  const session = async <T>(fn: (s: NativeSession) => T): Promise<T> => withSession(netns, fn);
  const run = (
    s: NativeSession,
    args: readonly string[],
    build: () => NativeRequest,
    context: RequestContext = {},
  ) => s.run(`${args[0] === 'fdb' ? 'bridge' : 'ip'} ${args.join(' ')}`, build, context);
  const set = async (n: string, args: readonly string[], build: (s: NativeSession) => NativeRequest) =>
    session((s) => run(s, ['link', 'set', 'dev', name(n), ...args], () => build(s), { linkName: n }));
  const addr = async (verb: Verb, dev: string, a: unknown) => {
    const spec = validate(AddressSpecSchema, a, 'address');
    return session((s) =>
      run(s, addrArgs(verb, name(dev, 'dev'), spec), () => addrRequest(verb, dev, spec, s.ifindexOf), {
        linkName: dev,
      }),
    );
  };
  const route = async (verb: Verb, r: unknown) => {
    const spec = validate(RouteSpecSchema, r, 'route');
    return session((s) => run(s, routeArgs(verb, spec), () => routeRequest(verb, spec, s.ifindexOf)));
  };
  const neigh = async (verb: Verb, n: unknown) => {
    const spec = validate(NeighbourSpecSchema, n, 'neigh');
    return session((s) => run(s, neighArgs(verb, spec), () => neighRequest(verb, spec, s.ifindexOf)));
  };
  const fdb = async (verb: 'add' | 'del', f: unknown) => {
    const spec = validate(FdbSpecSchema, f, 'fdb');
    return session((s) => run(s, fdbArgs(verb, spec), () => fdbRequest(verb, spec, s.ifindexOf)));
  };
  const batchOp = (s: NativeSession, op: NetlinkBatchOp): void => {
    const args = batchOpArgs(op);
    const context: RequestContext = {
      op,
      ...(batchOpLink(op) === undefined ? {} : { linkName: batchOpLink(op) }),
    };
    const build = (): NativeRequest => {
      switch (op.op) {
        case 'addrAdd':
        case 'addrReplace':
        case 'addrDel':
          return addrRequest(verbOf(op.op), op.dev, op.address, s.ifindexOf);
        case 'linkSetUp':
        case 'linkSetDown':
          return linkSetRequest(op.name, { up: op.op === 'linkSetUp' }, s.ifindexOf);
        case 'routeAdd':
        case 'routeReplace':
        case 'routeDel':
          return routeRequest(verbOf(op.op), op.route, s.ifindexOf);
        case 'neighAdd':
        case 'neighReplace':
        case 'neighDel':
          return neighRequest(verbOf(op.op), op.neigh, s.ifindexOf);
      }
    };
    run(s, args, build, context);
  };
  const { apply: journaledApply, adoptable } = journaled(options.journal, (p) => applyPlanNative(netns, p));

  const handle: Netlink = {
    netns,
    async linkAdd(input) {
      const spec = validate(LinkSpecSchema, input, 'spec') as LinkSpec;
      return session((s) => {
        run(s, linkAddArgs(spec), () => linkAddRequest(spec, s.ifindexOf), {
          linkKind: spec.kind,
          linkName: spec.name,
        });
        try {
          const after = {
            ...(spec.alias === undefined ? {} : { alias: spec.alias }),
            ...(spec.master === undefined ? {} : { master: spec.master }),
          };
          if (Object.keys(after).length > 0)
            run(s, ['link', 'set', 'dev', spec.name], () => linkSetRequest(spec.name, after, s.ifindexOf), {
              linkName: spec.name,
            });
          // The kernel applies flags before the master within one message: enslave first, then up.
          if (spec.up !== undefined)
            run(
              s,
              ['link', 'set', 'dev', spec.name, spec.up ? 'up' : 'down'],
              () => linkSetRequest(spec.name, { up: spec.up }, s.ifindexOf),
              {
                linkName: spec.name,
              },
            );
        } catch (e) {
          // All or nothing: a link whose master or alias could not be set is removed again.
          try {
            s.run(`ip link del dev ${spec.name}`, () => linkDelRequest(spec.name), { linkName: spec.name });
          } catch {
            // The error that matters is the one that made the link go.
          }
          throw e;
        }
      });
    },
    linkDel: (n) =>
      session((s) => run(s, ['link', 'del', 'dev', name(n)], () => linkDelRequest(n), { linkName: n })),
    async linkGet(n) {
      const link = (await handle.linkList()).find((l) => l.spec.name === name(n));
      if (!link) throw new LinkNotFoundError(n, netns);
      return link;
    },
    linkList: () => session((s) => observeLinks(s.socket)),
    linkSetUp: (n) => set(n, ['up'], (s) => linkSetRequest(n, { up: true }, s.ifindexOf)),
    linkSetDown: (n) => set(n, ['down'], (s) => linkSetRequest(n, { up: false }, s.ifindexOf)),
    linkSetMaster: (n, master) =>
      set(n, master === null ? ['nomaster'] : ['master', name(master, 'master')], (s) =>
        linkSetRequest(n, { master }, s.ifindexOf),
      ),
    linkSetNetns: (n, target) => set(n, ['netns', target], () => linkSetNetnsRequest(n, target)),
    linkRename: (n, newName) =>
      set(n, ['name', name(newName, 'newName')], (s) => linkRenameRequest(n, newName, s.ifindexOf)),
    async linkSetMtu(n, mtu) {
      const v = validate(z.number().int().min(68).max(65535), mtu, 'mtu');
      return set(n, ['mtu', String(v)], (s) => linkSetRequest(n, { mtu: v }, s.ifindexOf));
    },
    async linkSetMac(n, mac) {
      const v = validate(MacAddress, mac, 'mac');
      return set(n, ['address', v], (s) => linkSetRequest(n, { mac: v }, s.ifindexOf));
    },
    async linkSetAlias(n, alias) {
      const v = validate(z.string().max(255), alias, 'alias');
      return set(n, ['alias', v], (s) => linkSetRequest(n, { alias: v }, s.ifindexOf));
    },
    async linkSetPortFlags(n, flags) {
      const v = validate(BridgePortFlagsSchema, flags, 'flags');
      return set(n, bridgePortArgs(v), () => portSetRequest(n, v));
    },
    addrAdd: (dev, a) => addr('add', dev, a),
    addrReplace: (dev, a) => addr('replace', dev, a),
    addrDel: (dev, a) => addr('del', dev, a),
    async addrList(dev) {
      const links = dev === undefined ? await handle.linkList() : [await handle.linkGet(dev)];
      return links.flatMap((l) => (l.addresses ?? []).map((a) => ({ ...a, dev: l.spec.name })));
    },
    routeAdd: (r) => route('add', r),
    routeReplace: (r) => route('replace', r),
    routeDel: (r) => route('del', r),
    async routeList(filter = {}) {
      const table =
        filter.table === undefined ? undefined : validate(z.number().int().min(0), filter.table, 'table');
      return session((s) => {
        const names = new Map(observeLinks(s.socket).map((l) => [l.ifindex, l.spec.name]));
        const routes = observeRoutes(s.socket, names);
        return table === undefined ? routes : routes.filter((r) => r.table === table);
      });
    },
    neighAdd: (n) => neigh('add', n),
    neighReplace: (n) => neigh('replace', n),
    neighDel: (n) => neigh('del', n),
    neighList: () =>
      session((s) => [...(observeNative(s.socket, netns, { neighbours: true }).neighbours ?? [])]),
    fdbAdd: (f) => fdb('add', f),
    fdbDel: (f) => fdb('del', f),
    fdbList: () => session((s) => [...(observeNative(s.socket, netns, { fdb: true }).fdb ?? [])]),
    async sysctlSet(dev, sysctls) {
      const d = checkSysctlDevice(dev, 'dev');
      const { addrGenMode, ...numeric } = validate(InterfaceSysctlsSchema, sysctls, 'sysctls');
      const s = NativeSession.open(netns);
      try {
        if (addrGenMode !== undefined)
          s.run(
            `ip link set dev ${d} addrgenmode ${addrGenMode}`,
            () => linkAddrGenModeRequest(d, addrGenMode),
            { linkName: d },
          );
        await setSysctls(s, d, numeric);
      } finally {
        s.close();
      }
    },
    async batch(input) {
      const ops = validate(NetlinkBatchOpsSchema, input, 'ops');
      if (ops.length > 0) await session((s) => ops.forEach((op) => batchOp(s, op)));
    },
    monitor(onEvent, objects = ['link', 'address', 'route']) {
      const kinds = validate(z.array(z.enum(['link', 'address', 'route'])).min(1), objects, 'objects');
      const names = withSession(
        netns,
        (s) => new Map(observeLinks(s.socket).map((l) => [l.ifindex, l.spec.name])),
      );
      return monitorNative(netns, [...new Set(kinds)], names, onEvent);
    },
    observe: (scope) => session((s) => observeNative(s.socket, netns, scope)),
    dump: (scope) => dumpNamespace(createRunner(netns), scope),
    apply: journaledApply,
    adoptable,
    async reconcile(desired, planOptions) {
      const valid = parseDesiredState(desired);
      const scope = observeScopeOf(valid, planOptions);
      const observed = await handle.observe(scope);
      const p = makePlan(valid, observed, { adopt: await adoptable(), ...planOptions });
      return { plan: p, result: await journaledApply(p) };
    },
  };
  return handle;
}

const VERB = { Add: 'add', Replace: 'replace', Del: 'del' } as const;
const verbOf = (op: string): Verb => VERB[op.replace(/^(addr|route|neigh)/, '') as keyof typeof VERB];
