import { z } from 'zod';
import { MacAddress } from '@fabrik/api';
import { isCommandError, type RunResult } from '../exec/run.js';
import { classifyIpFailure } from './errors.js';
import { addrArgs, batchLine, fdbArgs, neighArgs, routeArgs } from './encode.js';
import { NetlinkBatchOpsSchema, batchOpArgs, batchOpLink, runBatch } from './batch.js';
import { createRunner, type NetnsRunner } from './exec.js';
import { checkInterfaceName, checkSysctlDevice, netnsArg, parseNetnsTarget } from './names.js';
import { validate } from './validate.js';
import {
  BridgePortFlagsSchema,
  LinkSpecSchema,
  bridgePortArgs,
  linkAddArgs,
  type LinkSpec,
} from './links/index.js';
import {
  AddressSpecSchema,
  FdbSpecSchema,
  InterfaceSysctlsSchema,
  NeighbourSpecSchema,
  RouteSpecSchema,
  sysctlAssignments,
} from './objects.js';
import { decodeLinkDump } from './decode/link.js';
import { decodeRouteDump } from './decode/route.js';
import { decodeNeighDump } from './decode/neigh.js';
import { decodeFdbDump } from './decode/fdb.js';
import { decodeMonitorLine } from './decode/monitor.js';
import { decodeDumps, dumpLinks, dumpNamespace, observeNamespace, runDump } from './observe.js';
import { parseDesiredState } from './desired.js';
import { applyPlan } from './apply.js';
import { observeScopeOf, plan as makePlan } from './plan.js';
import { journaled, type Netlink, type NetlinkOptions } from './netlink-api.js';

/** The commands as `ip -batch` lines, or undefined when a value cannot be written to one. */
function batchLinesOf(commands: readonly (readonly string[])[]): string[] | undefined {
  try {
    return commands.map((c) => batchLine(c));
  } catch {
    return undefined;
  }
}

/**
 * The handle through iproute2 processes (`ip`, `bridge`, `sysctl`, `nsenter`): the independent
 * oracle the differential tests hold the native backend to. Same contract as {@link createNetlink}.
 */
export function createIprouteNetlink(options: NetlinkOptions = {}): Netlink {
  const runner: NetnsRunner = createRunner(options.netns);
  const netns = options.netns;

  async function ip(
    args: string[],
    context: { linkKind?: string; linkName?: string } = {},
  ): Promise<RunResult> {
    try {
      return await runner.ip(args);
    } catch (e) {
      if (!isCommandError(e)) throw e;
      throw classifyIpFailure(`ip ${args.join(' ')}`, e.stderr, { ...context, netns, cause: e });
    }
  }
  async function bridge(args: string[]): Promise<RunResult> {
    try {
      return await runner.bridge(args);
    } catch (e) {
      if (!isCommandError(e)) throw e;
      throw classifyIpFailure(`bridge ${args.join(' ')}`, e.stderr, { netns, cause: e });
    }
  }
  /** An `ip -j ... show`: dumped again while iproute2 reports it interrupted (see runDump). */
  const listing = (args: string[]): Promise<RunResult> =>
    runDump(`ip ${args.join(' ')}`, () => runner.ip(args), netns);
  const name = (n: string, field = 'name'): string => checkInterfaceName(n, field);
  const set = (n: string, ...args: string[]): Promise<RunResult> =>
    ip(['link', 'set', 'dev', name(n), ...args], { linkName: n });

  const { apply: journaledApply, adoptable } = journaled(options.journal, (p) => applyPlan(runner, p));

  const handle: Netlink = {
    netns,
    async linkAdd(input) {
      const spec = validate(LinkSpecSchema, input, 'spec') as LinkSpec;
      const addArgs = linkAddArgs(spec);
      const enslave = typeof spec.master === 'string';
      const upDown = spec.up === undefined ? [] : [spec.up ? 'up' : 'down'];
      const after = [
        ...(spec.alias === undefined ? [] : ['alias', spec.alias]),
        ...(spec.master === undefined ? [] : spec.master === null ? ['nomaster'] : ['master', spec.master]),
        // The kernel applies flags before the master within one message: enslave first, then up.
        ...(enslave ? [] : upDown),
      ];
      const sets = [after, enslave ? upDown : []]
        .filter((a) => a.length > 0)
        .map((a) => ['link', 'set', 'dev', spec.name, ...a]);
      // Without a master, the add and its settings (alias, up) in ONE `ip -batch` process when every
      // value can be a batch line: a process per link instead of two (the CNI plugin creates a veth
      // per Pod interface). iproute2 names the failing line of a kernel error (`Command failed -:N`);
      // an argument it refuses ends the batch unnamed, which only the add's can be here (a validated
      // alias and up/down always parse; a master name is checked only when set, so not batched).
      const lines =
        sets.length > 0 && spec.master === undefined ? batchLinesOf([addArgs, ...sets]) : undefined;
      if (lines) {
        try {
          await runner.ip(['-batch', '-'], `${lines.join('\n')}\n`);
          return;
        } catch (e) {
          if (!isCommandError(e)) throw e;
          const failed = /Command failed -:(\d+)/.exec(e.stderr);
          const index = failed?.[1] ? Number(failed[1]) - 1 : 0;
          // All or nothing: a link whose master or alias could not be set is removed again.
          if (index > 0) await ip(['link', 'del', 'dev', spec.name]).catch(() => {});
          throw classifyIpFailure(`ip ${lines[index] ?? lines[0]}`, e.stderr, {
            ...(index === 0 ? { linkKind: spec.kind } : {}),
            linkName: spec.name,
            netns,
            cause: e,
          });
        }
      }
      await ip(addArgs, { linkKind: spec.kind, linkName: spec.name });
      try {
        for (const args of sets) await ip(args, { linkName: spec.name });
      } catch (e) {
        // All or nothing: a link whose master or alias could not be set is removed again.
        await ip(['link', 'del', 'dev', spec.name]).catch(() => {});
        throw e;
      }
    },
    async linkDel(n) {
      await ip(['link', 'del', 'dev', name(n)], { linkName: n });
    },
    async linkGet(n) {
      const [link] = decodeLinkDump((await listing(['-j', '-d', 'addr', 'show', 'dev', name(n)])).stdout);
      if (!link) throw classifyIpFailure(`ip addr show dev ${n}`, `Device "${n}" does not exist.`, { netns });
      return link;
    },
    async linkList() {
      return decodeLinkDump((await listing(['-j', '-d', 'addr', 'show'])).stdout);
    },
    async linkSetUp(n) {
      await set(n, 'up');
    },
    async linkSetDown(n) {
      await set(n, 'down');
    },
    async linkSetMaster(n, master) {
      await set(n, ...(master === null ? ['nomaster'] : ['master', name(master, 'master')]));
    },
    async linkSetNetns(n, target) {
      await set(n, 'netns', netnsArg(parseNetnsTarget(target)));
    },
    async linkRename(n, newName) {
      await set(n, 'name', name(newName, 'newName'));
    },
    async linkSetMtu(n, mtu) {
      await set(n, 'mtu', String(validate(z.number().int().min(68).max(65535), mtu, 'mtu')));
    },
    async linkSetMac(n, mac) {
      await set(n, 'address', validate(MacAddress, mac, 'mac'));
    },
    async linkSetAlias(n, alias) {
      await set(n, 'alias', validate(z.string().max(255), alias, 'alias'));
    },
    async linkSetPortFlags(n, flags) {
      await set(n, ...bridgePortArgs(validate(BridgePortFlagsSchema, flags, 'flags')));
    },
    async addrAdd(dev, a) {
      await ip(addrArgs('add', name(dev, 'dev'), validate(AddressSpecSchema, a, 'address')), {
        linkName: dev,
      });
    },
    async addrReplace(dev, a) {
      await ip(addrArgs('replace', name(dev, 'dev'), validate(AddressSpecSchema, a, 'address')), {
        linkName: dev,
      });
    },
    async addrDel(dev, a) {
      await ip(addrArgs('del', name(dev, 'dev'), validate(AddressSpecSchema, a, 'address')), {
        linkName: dev,
      });
    },
    async addrList(dev) {
      const links = dev === undefined ? await handle.linkList() : [await handle.linkGet(dev)];
      return links.flatMap((l) => (l.addresses ?? []).map((a) => ({ ...a, dev: l.spec.name })));
    },
    async routeAdd(r) {
      await ip(routeArgs('add', validate(RouteSpecSchema, r, 'route')));
    },
    async routeReplace(r) {
      await ip(routeArgs('replace', validate(RouteSpecSchema, r, 'route')));
    },
    async routeDel(r) {
      await ip(routeArgs('del', validate(RouteSpecSchema, r, 'route')));
    },
    async routeList(filter = {}) {
      const table =
        filter.table === undefined ? undefined : validate(z.number().int().min(0), filter.table, 'table');
      // Without a family, iproute2 dumps both only for `table all` (a table alone means IPv4).
      const routes = decodeRouteDump((await listing(['-j', 'route', 'show', 'table', 'all'])).stdout);
      return table === undefined ? routes : routes.filter((r) => r.table === table);
    },
    async neighAdd(n) {
      await ip(neighArgs('add', validate(NeighbourSpecSchema, n, 'neigh')));
    },
    async neighReplace(n) {
      await ip(neighArgs('replace', validate(NeighbourSpecSchema, n, 'neigh')));
    },
    async neighDel(n) {
      await ip(neighArgs('del', validate(NeighbourSpecSchema, n, 'neigh')));
    },
    async neighList() {
      return decodeNeighDump((await listing(['-j', 'neigh', 'show'])).stdout);
    },
    async fdbAdd(f) {
      await bridge(fdbArgs('add', validate(FdbSpecSchema, f, 'fdb')));
    },
    async fdbDel(f) {
      await bridge(fdbArgs('del', validate(FdbSpecSchema, f, 'fdb')));
    },
    async fdbList() {
      return decodeFdbDump(
        (await runDump('bridge -j fdb show', () => runner.bridge(['-j', 'fdb', 'show']), netns)).stdout,
      );
    },
    async sysctlSet(dev, sysctls) {
      const d = checkSysctlDevice(dev, 'dev');
      const assignments = sysctlAssignments(d, validate(InterfaceSysctlsSchema, sysctls, 'sysctls'));
      if (assignments.length > 0) await runner.sysctlWrite(assignments);
    },
    async batch(input) {
      const ops = validate(NetlinkBatchOpsSchema, input, 'ops');
      if (ops.length === 0) return;
      await runBatch(
        runner,
        'ip',
        { lines: ops.map((op) => batchLine(batchOpArgs(op))), ops },
        { contextOf: (op) => ({ linkName: batchOpLink(op) }) },
      );
    },
    monitor(onEvent, objects = ['link', 'address', 'route']) {
      const kinds = validate(z.array(z.enum(['link', 'address', 'route'])).min(1), objects, 'objects');
      return runner.ipStream(['-ts', 'monitor', ...new Set(kinds)], (line) => {
        const event = decodeMonitorLine(line);
        if (event) onEvent(event);
      });
    },
    observe: (scope) => observeNamespace(runner, scope),
    dump: (scope) => dumpNamespace(runner, scope),
    apply: journaledApply,
    adoptable,
    async reconcile(desired, planOptions) {
      // The link dump does not depend on the desired state: start it, and validate the desired
      // state (CPU) while iproute2 runs. A validation error wins; the dump's outcome is dropped.
      const links = dumpLinks(runner);
      links.catch(() => {});
      const valid = parseDesiredState(desired);
      const scope = observeScopeOf(valid, planOptions);
      const observed = decodeDumps(await dumpNamespace(runner, scope, { addr: links }), scope);
      const p = makePlan(valid, observed, { adopt: await adoptable(), ...planOptions });
      return { plan: p, result: await journaledApply(p) };
    },
  };
  return handle;
}
