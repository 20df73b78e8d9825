// `ip monitor` prints text only (iproute2 6.1 ignores -j there): one event per unindented line,
// followed by indented continuation lines. The decoder keeps what an agent needs to decide whether
// an event concerns its objects: which object type, deleted or not, the device, and for routes
// the destination, table and protocol.

/** The object types `ip monitor` can follow here. */
export type MonitorObject = 'link' | 'address' | 'route';

/** One event of `ip monitor link address route`. */
export type NetlinkEvent =
  | { readonly object: 'link'; readonly deleted: boolean; readonly name: string }
  | { readonly object: 'address'; readonly deleted: boolean; readonly dev: string; readonly address: string }
  | {
      readonly object: 'route';
      readonly deleted: boolean;
      readonly dst: string;
      readonly dev?: string;
      readonly table?: string;
      readonly protocol?: string;
    };

const LINK = /^(\d+): ([^\s:@]+)(?:@[^\s:]+)?: </;
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
  const deleted = line.startsWith('Deleted ');
  const text = deleted ? line.slice('Deleted '.length) : line;
  const link = LINK.exec(text);
  if (link) return { object: 'link', deleted, name: link[2]! };
  const address = ADDRESS.exec(text);
  if (address) return { object: 'address', deleted, dev: address[2]!, address: address[4]! };
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
  };
}
