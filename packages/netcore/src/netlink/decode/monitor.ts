// `ip monitor` prints text only (iproute2 6.1 ignores -j there): one event per unindented line,
// followed by indented continuation lines. The decoder keeps what an agent needs to decide whether
// an event concerns its objects: which object type, deleted or not, the device, and for routes
// the destination, table and protocol.

/** The object types `ip monitor` can follow here. */
export type MonitorObject = 'link' | 'address' | 'route';

/** One event of `ip -ts monitor link address route`. */
export type NetlinkEvent = (
  | {
      readonly object: 'link';
      readonly deleted: boolean;
      readonly name: string;
      /** Administratively up (the `UP` flag). */
      readonly up: boolean;
      /** Its master, when it has one. */
      readonly master?: string;
    }
  | { readonly object: 'address'; readonly deleted: boolean; readonly dev: string; readonly address: string }
  | {
      readonly object: 'route';
      readonly deleted: boolean;
      readonly dst: string;
      readonly dev?: string;
      readonly table?: string;
      readonly protocol?: string;
    }
) & {
  /** When `ip` received it (`-ts`), in this machine's local time; absent without `-ts`. */
  readonly at?: Date;
};

const TIMESTAMP = /^\[(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{6})\] /;
const LINK = /^(\d+): ([^\s:@]+)(?:@[^\s:]+)?: <([^>]*)>/;
const ADDRESS = /^(\d+): (\S+)\s+(inet6?) (\S+)/;
const ROUTE_TYPES = new Set([
  'unicast',
  'local',
  'broadcast',
  'multicast',
  'anycast',
  'unreachable',
  'blackhole',
  'prohibit',
  'throw',
  'nat',
]);

/** Decodes the first line of one `ip monitor` event; `undefined` for continuation lines and anything else. */
export function decodeMonitorLine(line: string): NetlinkEvent | undefined {
  if (line === '' || /^\s/.test(line)) return undefined;
  const stamp = TIMESTAMP.exec(line);
  const at = stamp ? { at: localTime(stamp) } : {};
  const rest = stamp ? line.slice(stamp[0].length) : line;
  const deleted = rest.startsWith('Deleted ');
  const text = deleted ? rest.slice('Deleted '.length) : rest;
  const link = LINK.exec(text);
  if (link) {
    const master = / master (\S+)/.exec(text)?.[1];
    return {
      object: 'link',
      deleted,
      name: link[2]!,
      up: link[3]!.split(',').includes('UP'),
      ...(master === undefined ? {} : { master }),
      ...at,
    };
  }
  const address = ADDRESS.exec(text);
  if (address) return { object: 'address', deleted, dev: address[2]!, address: address[4]!, ...at };
  const words = text.trim().split(/\s+/);
  let i = 0;
  if (ROUTE_TYPES.has(words[0]!)) i++;
  const dst = words[i];
  if (dst === undefined || !(dst === 'default' || /^[0-9a-fA-F.:]+(\/\d+)?$/.test(dst))) return undefined;
  const after = (key: string): string | undefined => {
    const at = words.indexOf(key, i + 1);
    return at < 0 ? undefined : words[at + 1];
  };
  const dev = after('dev');
  const table = after('table');
  const protocol = after('proto');
  return {
    object: 'route',
    deleted,
    dst,
    ...(dev === undefined ? {} : { dev }),
    ...(table === undefined ? {} : { table }),
    ...(protocol === undefined ? {} : { protocol }),
    ...at,
  };
}

/** `-ts` prints local time with microseconds. */
function localTime(m: RegExpExecArray): Date {
  const [, y, mo, d, h, mi, s, us] = m.map(Number) as number[];
  return new Date(y!, mo! - 1, d!, h!, mi!, s!, Math.floor(us! / 1000));
}
