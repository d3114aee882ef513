/**
 * A self-test of the conservation audit: `--debug-uncounted-loss NODE` makes that node lose
 * every 7th frame it receives without counting it, so a test can watch the audit fail
 * (`conservation: false`, exit 1). Never used otherwise.
 */
import type { Frame } from '@rocelab/wire';
import type { NodeModel } from '@rocelab/sim';

export function leakEveryNth<M extends NodeModel>(model: M, n = 7): M {
  let seen = 0;
  const onFrame = model.onFrame.bind(model);
  model.onFrame = (nowPs: number, port: number, frame: Frame) => {
    if (++seen % n === 0) return; // lost without a reason: exactly what the audit must catch
    onFrame(nowPs, port, frame);
  };
  return model;
}
