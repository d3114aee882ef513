/**
 * @rocelab/wire — what travels between rocelab processes (DESIGN §4): the emulated `Frame`
 * (header fields only; lengths stand for the payload), its size on the wire (DESIGN §5), the
 * link and control messages of proto/rocelab.proto as plain TypeScript, and a codec built on
 * protobufjs static code that refuses bad input with a typed `WireError`, and the real bytes a
 * frame stands for with classic pcap records, for captures Wireshark opens. Pure: no sockets,
 * timers, clocks or files — the runtime owns the WebSockets.
 */
export * from './frame.js';
export * from './bytes.js';
// DSCP → priority maps, shared by NICs and switches.
export * from './priority.js';
export * from './version.js';
export * from './messages.js';
export * from './errors.js';
export * from './limits.js';
export { encodeEnvelope, decodeEnvelope } from './codec.js';
export { validateEnvelope } from './validate.js';
// Frames between the threads of one process: trusted fixed records, not protobuf.
export { RecordReader, RecordWriter } from './frame-record.js';
// Real bytes of a frame and classic pcap records, for captures Wireshark opens.
export * from './packet-bytes.js';
export * from './pcap.js';
