/**
 * IPv4 addresses and subnets as unsigned 32-bit integers (the form frames and routes carry).
 * Octets with leading zeros are rejected: `010` reads as octal in some tools and decimal in others.
 */
import { EXPECT, UnitError } from './units.js';
import type { Subnet } from './pod.js';

const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}$`);

function octets(text: string): number | null {
  const m = IPV4.exec(text);
  if (!m) return null;
  return ((Number(m[1]) << 24) | (Number(m[2]) << 16) | (Number(m[3]) << 8) | Number(m[4])) >>> 0;
}

/** `10.0.1.11` → 0x0a00010b. */
export function parseIpv4(text: string): number {
  const ip = typeof text === 'string' ? octets(text) : null;
  if (ip === null) throw new UnitError(EXPECT.ipv4, text);
  return ip;
}

/** 0x0a00010b → `10.0.1.11`. */
export function formatIpv4(ip: number): string {
  return [ip >>> 24, (ip >>> 16) & 0xff, (ip >>> 8) & 0xff, ip & 0xff].join('.');
}

/** The netmask of a prefix length as an unsigned 32-bit integer (/0 → 0). */
export function prefixMask(prefixLength: number): number {
  return prefixLength === 0 ? 0 : (0xffffffff << (32 - prefixLength)) >>> 0;
}

/** `10.0.1.0/24` → {base, prefixLength}; host bits set (`10.0.1.1/24`) are a typo, so rejected. */
export function parseSubnet(text: string): Subnet {
  const m = typeof text === 'string' ? /^([\d.]+)\/(3[0-2]|[12]?\d)$/.exec(text) : null;
  const base = m ? octets(m[1]!) : null;
  const prefixLength = m ? Number(m[2]) : 0;
  if (base === null || (base & ~prefixMask(prefixLength)) !== 0) throw new UnitError(EXPECT.subnet, text);
  return { base, prefixLength };
}

/** Whether `ip` lies inside `subnet`. */
export function inSubnet(ip: number, subnet: Subnet): boolean {
  return ((ip & prefixMask(subnet.prefixLength)) >>> 0) === subnet.base;
}
