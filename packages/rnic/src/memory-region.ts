/**
 * Memory regions with real bytes (issue 13): what a host registers for remote access, and the
 * checks a responder makes before it touches one (IBTA vol 1 §10.6; Linux rxe `rxe_mr.c`
 * `mr_check_range`, `lookup_mr`). A region has a virtual base address, a length, an rkey and
 * access flags; a remote access names an address, a length and an rkey, and fails as a whole
 * (wrong rkey, outside the region, or not allowed) before a byte moves. 64-bit atomics use the
 * host's byte order, little-endian here, on 8-byte-aligned addresses.
 *
 * Deterministic: base addresses and rkeys are handed out in registration order, so the same
 * program registers the same regions at the same addresses in every mode.
 */

export type RemoteAccess = 'remoteRead' | 'remoteWrite' | 'remoteAtomic';

export interface RegionHandle {
  address: bigint;
  lengthBytes: number;
  rkey: number;
}

/** Why a remote access was refused: each ends in a NAK and a QP in error at the requester. */
export type AccessError = 'rkey' | 'bounds' | 'access' | 'misaligned';

export type AtomicKind = 'fetchAdd' | 'compareSwap';

interface Region extends RegionHandle {
  bytes: Uint8Array;
  access: ReadonlySet<RemoteAccess>;
}

/** Regions start at this virtual address, each at a 4 KiB boundary after the previous one. */
const FIRST_ADDRESS = 0x1000_0000n;
const PAGE = 4096n;

/** The `index`-th region, of `lengthBytes`, at `address`: the rkey's low byte is a key (as in mlx5 mkeys), the rest its index. */
function nextRegion(index: number, address: bigint, lengthBytes: number): RegionHandle {
  return { address, lengthBytes, rkey: ((index + 1) << 8) | 0x5a };
}

/** The next region starts at the page after this one's last, leaving a guard page. */
function afterRegion(r: RegionHandle): bigint {
  return r.address + ((BigInt(r.lengthBytes) + PAGE - 1n) / PAGE) * PAGE + PAGE;
}

export class MemoryRegions {
  private readonly regions: Array<Region | null> = [];
  private nextAddress = FIRST_ADDRESS;

  /** Register `bytes` (kept, not copied: the region is the application's buffer) for the given remote accesses. */
  register(bytes: Uint8Array, access: readonly RemoteAccess[]): RegionHandle {
    const handle = nextRegion(this.regions.length, this.nextAddress, bytes.length);
    this.regions.push({ ...handle, bytes, access: new Set(access) });
    this.nextAddress = afterRegion(handle);
    return handle;
  }

  /**
   * Register `bytes` at the address a native program has them at (issue 25: its own virtual
   * address, or the iova it chose), so that remote peers name its buffers as it told them. The
   * rkey follows the registration order, as `register`'s does.
   */
  registerAt(address: bigint, bytes: Uint8Array, access: readonly RemoteAccess[]): RegionHandle {
    const handle = nextRegion(this.regions.length, address, bytes.length);
    this.regions.push({ ...handle, bytes, access: new Set(access) });
    return handle;
  }

  /** Deregister the region of `rkey`: later accesses by it fail as a wrong rkey (its number is never given again). */
  deregister(rkey: number): boolean {
    const i = (rkey >>> 8) - 1;
    if (this.regions[i]?.rkey !== rkey) return false;
    this.regions[i] = null;
    return true;
  }

  /**
   * Where regions of these lengths would be if registered in this order on a fresh host: what
   * its peers know of a host's memory without holding its bytes (an app's `regions`, issue 13).
   */
  static layout(lengths: readonly number[]): RegionHandle[] {
    let address = FIRST_ADDRESS;
    return lengths.map((lengthBytes, index) => {
      const handle = nextRegion(index, address, lengthBytes);
      address = afterRegion(handle);
      return handle;
    });
  }

  /** Where `[address, address + length)` lies in the region of `rkey`, if `access` is allowed there. */
  locate(address: bigint, lengthBytes: number, rkey: number, access: RemoteAccess): { bytes: Uint8Array; offset: number } | AccessError {
    const region = this.regions[(rkey >>> 8) - 1];
    if (region == null || region.rkey !== rkey) return 'rkey';
    if (!region.access.has(access)) return 'access';
    const offset = address - region.address;
    if (offset < 0n || offset + BigInt(lengthBytes) > BigInt(region.lengthBytes)) return 'bounds';
    return { bytes: region.bytes, offset: Number(offset) };
  }

  /** The bytes a READ response carries. */
  read(address: bigint, lengthBytes: number, rkey: number): Uint8Array | AccessError {
    const at = this.locate(address, lengthBytes, rkey, 'remoteRead');
    return typeof at === 'string' ? at : at.bytes.slice(at.offset, at.offset + lengthBytes);
  }

  /** A WRITE's bytes into the region. */
  write(address: bigint, data: Uint8Array, rkey: number): AccessError | null {
    const at = this.locate(address, data.length, rkey, 'remoteWrite');
    if (typeof at === 'string') return at;
    at.bytes.set(data, at.offset);
    return null;
  }

  /**
   * FETCH_AND_ADD (adds `operand`) or COMPARE_AND_SWAP (writes `swap` where the word equals
   * `operand`) on the 8-byte word at `address`, modulo 2^64. Returns the word as it was.
   */
  atomic(kind: AtomicKind, address: bigint, rkey: number, operand: bigint, swap = 0n): bigint | AccessError {
    if ((address & 7n) !== 0n) return 'misaligned';
    const at = this.locate(address, 8, rkey, 'remoteAtomic');
    if (typeof at === 'string') return at;
    const view = new DataView(at.bytes.buffer, at.bytes.byteOffset + at.offset, 8);
    const original = view.getBigUint64(0, true);
    if (kind === 'fetchAdd') view.setBigUint64(0, BigInt.asUintN(64, original + operand), true);
    else if (original === BigInt.asUintN(64, operand)) view.setBigUint64(0, BigInt.asUintN(64, swap), true);
    return original;
  }
}
