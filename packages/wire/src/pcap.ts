/**
 * Classic pcap (libpcap's file format; IETF draft-ietf-opsawg-pcap) with nanosecond
 * timestamps, as pure byte builders: the caller owns the file. A file is one
 * `pcapFileHeader` followed by one `pcapRecord` per packet. Little-endian throughout; readers
 * tell the byte order and the timestamp resolution from the magic number.
 */

/** Nanosecond-resolution pcap: records carry seconds and nanoseconds. */
export const PCAP_MAGIC_NANOSECONDS = 0xa1b23c4d;
export const PCAP_VERSION_MAJOR = 2;
export const PCAP_VERSION_MINOR = 4;
/** Ethernet II frames from the destination MAC on, without the FCS. */
export const LINKTYPE_ETHERNET = 1;
/**
 * The largest snapshot length libpcap writes and Wireshark reads (`MAXIMUM_SNAPLEN`,
 * `WTAP_MAX_PACKET_SIZE_STANDARD`): Wireshark refuses a record longer than this as a bad file.
 */
export const PCAP_MAX_SNAPLEN = 262_144;
export const PCAP_FILE_HEADER_BYTES = 24;
export const PCAP_RECORD_HEADER_BYTES = 16;

const PS_PER_NS = 1_000;
const PS_PER_S = 1_000_000_000_000;

function checkSnaplen(snaplen: number, where: string): void {
  if (!(Number.isInteger(snaplen) && snaplen >= 1 && snaplen <= PCAP_MAX_SNAPLEN)) {
    throw new RangeError(`${where}: snaplen: expected an integer number of bytes (1..${PCAP_MAX_SNAPLEN}), got ${snaplen}`);
  }
}

/** The 24-byte file header: magic, version 2.4, zone 0, sigfigs 0, `snaplen`, LINKTYPE_ETHERNET. */
export function pcapFileHeader(snaplen: number): Uint8Array {
  checkSnaplen(snaplen, 'pcapFileHeader');
  const bytes = new Uint8Array(PCAP_FILE_HEADER_BYTES);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, PCAP_MAGIC_NANOSECONDS, true);
  view.setUint16(4, PCAP_VERSION_MAJOR, true);
  view.setUint16(6, PCAP_VERSION_MINOR, true);
  // bytes 8..15: thiszone and sigfigs, both 0 (timestamps are UTC, i.e. virtual time from 0)
  view.setUint32(16, snaplen, true);
  view.setUint32(20, LINKTYPE_ETHERNET, true);
  return bytes;
}

/**
 * One record: the 16-byte header (seconds, nanoseconds of virtual time `timePs` truncated to
 * whole ns, captured length = min(length, snaplen), original length) and the first captured
 * bytes of `packet`. Pass the snaplen of the file header.
 */
export function pcapRecord(timePs: number, packet: Uint8Array, snaplen: number): Uint8Array {
  if (!(Number.isSafeInteger(timePs) && timePs >= 0)) {
    throw new RangeError(`pcapRecord: timePs: expected a non-negative safe integer of picoseconds, got ${timePs}`);
  }
  checkSnaplen(snaplen, 'pcapRecord');
  if (packet.length === 0) throw new RangeError('pcapRecord: packet: expected at least 1 byte, got 0');
  const captured = Math.min(packet.length, snaplen);
  const bytes = new Uint8Array(PCAP_RECORD_HEADER_BYTES + captured);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, Math.floor(timePs / PS_PER_S), true);
  view.setUint32(4, Math.floor((timePs % PS_PER_S) / PS_PER_NS), true);
  view.setUint32(8, captured, true);
  view.setUint32(12, packet.length, true);
  bytes.set(packet.subarray(0, captured), PCAP_RECORD_HEADER_BYTES);
  return bytes;
}
