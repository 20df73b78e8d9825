// Checks of the OVS operations' arguments, before anything is sent: a bad argument throws
// OvsdbInvalidInputError naming the field, and the database is left as it was.
import { InterfaceName, VlanId } from '@fabrik/api';
import { OvsdbInvalidInputError } from '../errors.js';
import { DEFAULT_OVS_OWNER, OVS_OWNER_KEY } from './ownership.js';
import type { PortSpec, PortVlanSettings } from './ports.js';

export function check<T>(
  schema: {
    safeParse(
      v: unknown,
    ): { success: true; data: T } | { success: false; error: { issues: readonly { message: string }[] } };
  },
  value: unknown,
  field: string,
): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new OvsdbInvalidInputError(field, r.error.issues.map((i) => i.message).join('; '));
  return r.data;
}

export function checkInt(value: number, min: number, max: number, field: string): void {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new OvsdbInvalidInputError(field, `must be an integer in ${min}..${max}`);
}

export function checkOwner(owner: string | undefined): string {
  const o = owner ?? DEFAULT_OVS_OWNER;
  if (o.length === 0 || o.length > 256) throw new OvsdbInvalidInputError('owner', 'must be 1-256 characters');
  return o;
}

export function checkExternalIds(
  ids: Readonly<Record<string, string>> | undefined,
  owner: string,
  field: string,
): void {
  for (const [k, v] of Object.entries(ids ?? {})) {
    if (typeof v !== 'string') throw new OvsdbInvalidInputError(`${field}.${k}`, 'must be a string');
    if (k === OVS_OWNER_KEY && v !== owner) {
      throw new OvsdbInvalidInputError(
        `${field}.${k}`,
        `is set from the owner option (${JSON.stringify(owner)})`,
      );
    }
  }
}

/**
 * A tag is a VLAN id (1-4094), or 0 on an access port: VLAN 0, the bridge's untagged frames, with
 * tagged ingress dropped (ovs-vswitchd.conf.db(5), Port `vlan_mode`).
 */
export function checkVlan(settings: PortVlanSettings, field: string): void {
  const untaggedAccess = settings.tag === 0 && settings.vlanMode === 'access';
  if (settings.tag !== undefined && settings.tag !== null && !untaggedAccess)
    check(VlanId, settings.tag, `${field}.tag`);
  settings.trunks?.forEach((t, i) => check(VlanId, t, `${field}.trunks[${i}]`));
}

export function checkPortSpec(spec: PortSpec, field: string): void {
  check(InterfaceName, spec.bridge, `${field}.bridge`);
  check(InterfaceName, spec.name, `${field}.name`);
  if ((spec.type === 'patch') !== (spec.peer !== undefined))
    throw new OvsdbInvalidInputError(`${field}.peer`, 'is required for patch ports and only for them');
  if (spec.peer !== undefined) check(InterfaceName, spec.peer, `${field}.peer`);
  checkVlan(spec, field);
  if (spec.mtuRequest !== undefined) checkInt(spec.mtuRequest, 68, 65535, `${field}.mtuRequest`);
  if (spec.ofportRequest !== undefined) checkInt(spec.ofportRequest, 1, 65279, `${field}.ofportRequest`);
  const owner = checkOwner(spec.owner);
  checkExternalIds(spec.externalIds, owner, `${field}.externalIds`);
  checkExternalIds(spec.interfaceExternalIds, owner, `${field}.interfaceExternalIds`);
}
