/**
 * How a `--mode docker` run fails, apart from the code that runs it: the commands that catch
 * these (run, drill) should not load dockerode unless they use it.
 */

/** The run cannot start as asked (no engine, no image, files the containers cannot read): bad input, exit 2. */
export class DockerRunError extends Error {}

/** The run started and failed (no result, too long, interrupted): exit 1. */
export class DockerRunFailure extends Error {}
