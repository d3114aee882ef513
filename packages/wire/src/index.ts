/**
 * @rocelab/wire — what travels between rocelab processes (DESIGN §4): the emulated `Frame`
 * (header fields only; lengths stand for the payload), its size on the wire (DESIGN §5), the
 * link and control messages of proto/rocelab.proto as plain TypeScript, and a codec built on
 * protobufjs static code that refuses bad input with a typed `WireError`. Pure: no sockets,
 * timers or clocks — the runtime owns the WebSockets.
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
