/**
 * The imported pod as YAML (`import-hpcc-pod.ts`): block style, one flow-style line per node,
 * link, flow and fault, and each note as a comment before the key it explains.
 */
import { Document, isMap, isScalar, isSeq, type Node as YamlNode, type Pair } from 'yaml';

/** Where a note goes: the keys (and list indices) down to the key it comments. */
export type NotePath = ReadonlyArray<string | number>;

/** The pod as YAML: block style, one line per node, link and flow, with the notes as comments before their keys. */
export function renderImportedPod(pod: Record<string, unknown>, header: string[], notes: ReadonlyArray<{ path: NotePath; text: string }>): string {
  const doc = new Document(pod);
  doc.commentBefore = header.join('\n');
  for (const key of ['nodes', 'links', 'workloads', 'faults']) {
    const seq = doc.get(key, true);
    if (isSeq(seq)) for (const item of seq.items) if (isMap(item)) item.flow = true;
  }
  for (const { path, text } of notes) {
    const parent = doc.getIn(path.slice(0, -1), true) as YamlNode | undefined;
    const last = path.at(-1)!;
    const comment = ` ${text}`;
    if (isSeq(parent) && typeof last === 'number') {
      const item = parent.items[last] as YamlNode | undefined;
      if (item !== undefined) item.commentBefore = item.commentBefore ? `${item.commentBefore}\n${comment}` : comment;
    } else if (isMap(parent)) {
      const pair = parent.items.find((p: Pair) => (isScalar(p.key) ? p.key.value : p.key) === last);
      if (pair === undefined) continue;
      if (!isScalar(pair.key)) pair.key = doc.createNode(pair.key);
      const k = pair.key as YamlNode;
      k.commentBefore = k.commentBefore ? `${k.commentBefore}\n${comment}` : comment;
    } else if (path.length === 1) {
      const pair = doc.contents && isMap(doc.contents) ? doc.contents.items.find((p: Pair) => (isScalar(p.key) ? p.key.value : p.key) === last) : undefined;
      if (pair === undefined) continue;
      if (!isScalar(pair.key)) pair.key = doc.createNode(pair.key);
      (pair.key as YamlNode).commentBefore = comment;
    }
  }
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}
