/** What the engine refuses: a livelocked model, a bad configuration, a frame from an unknown remote port. */
export class EngineError extends Error {
  constructor(
    readonly code: 'livelock' | 'config' | 'remote',
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}
