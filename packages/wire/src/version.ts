/**
 * The wire protocol version, sent in every Hello and compared by the runtime: a peer with
 * another version is refused with a clear close reason (DESIGN §4). Bump it whenever a field
 * of proto/rocelab.proto changes meaning, is removed, or becomes required by the receiver.
 */
export const PROTOCOL_VERSION = 3;
