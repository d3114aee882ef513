/**
 * Size limits a decoder enforces on input from peers. They bound the memory and time one
 * message can cost a node; the message-size limit is checked before any decoding.
 */
export interface DecodeLimits {
  /** Bytes of one encoded Envelope; the WebSocket `maxPayload` should match. */
  maxMessageBytes: number;
  /** Frames in one Batch (one link, one window). */
  maxFramesPerBatch: number;
  /** UTF-8 bytes of a name-like string field, and bytes of a `bytes` field (nonce, proof, hash). */
  maxStringBytes: number;
  /** UTF-8 bytes of the JSON-carrying strings (`Fault.spec`, `NodeStats.resultsJson`, `NodeStats.reportJson`). */
  maxJsonBytes: number;
  /** Entries of any other repeated field or map (faults, members, nodes, links, drop reasons). */
  maxRepeated: number;
}

export const DEFAULT_DECODE_LIMITS: Readonly<DecodeLimits> = Object.freeze({
  maxMessageBytes: 4 * 1024 * 1024,
  maxFramesPerBatch: 65_536,
  maxStringBytes: 1_024,
  // A host's final results list every flow it ran; they still must fit the message.
  maxJsonBytes: 1024 * 1024,
  maxRepeated: 65_536,
});
