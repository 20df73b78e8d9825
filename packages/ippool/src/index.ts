export { parseAddress, formatAddress, canonicalAddress, networkBounds, bitsOf } from './address.js';
export type { IpFamily, NumericAddress } from './address.js';
export { poolSpace, spaceContains, firstFree } from './pool-space.js';
export type { PoolSpace, AddressInterval } from './pool-space.js';
export { planAllocation, planRelease, poolUsage, isAllocatedTo } from './plan.js';
export type { AllocationPlan, ReleasePlan, Usage, AttachmentRef } from './plan.js';
export {
  IPPOOLS,
  POOL_CONFLICT_BACKOFF,
  ipPoolClient,
  allocate,
  findAllocations,
  release,
  collectGarbage,
} from './allocator.js';
export type {
  IpPoolClient,
  WriteOptions,
  AllocateRequest,
  PoolAllocation,
  ReleaseRequest,
  ReleasedAddress,
  CollectRequest,
} from './allocator.js';
export {
  IpPoolError,
  AddressSyntaxError,
  PoolNotFoundError,
  PoolExhaustedError,
  AddressUnavailableError,
  PoolSetError,
  PoolContendedError,
  isIpPoolError,
  isAddressSyntaxError,
  isPoolNotFoundError,
  isPoolExhaustedError,
  isAddressUnavailableError,
  isPoolSetError,
  isPoolContendedError,
} from './errors.js';
