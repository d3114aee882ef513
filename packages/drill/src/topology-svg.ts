/**
 * A variant's topology picture: the pod as a graph, its links coloured by what happened on them
 * (stuck red, dropping orange, paused blue, the rest grey), each link with a `<title>` saying
 * where and how much. ELK's layered algorithm (elkjs, the Eclipse Layout Kernel compiled to
 * JavaScript) places the nodes: links point down from spine to leaf to ToR to host, so a Clos
 * comes out in its tiers, and crossings between tiers are minimized. The layout is deterministic
 * (a fixed random seed, the pod's order kept as the model order), the SVG is written here with
 * rounded coordinates, so the same run gives the same bytes. No script, no external resource.
 */
import elkBundled from 'elkjs/lib/elk.bundled.js';
import type { ELK, ElkNode } from 'elkjs/lib/elk-api.js';
import type { LinkOutcome } from './report-model.js';

export interface PictureNode {
  name: string;
  role: string;
}

/** Tier of each role, top to bottom. */
const TIER: Readonly<Record<string, number>> = { spine: 0, leaf: 1, switch: 1, tor: 2, host: 3 };
export const LINK_COLOURS = { stuck: '#c62828', dropping: '#ef6c00', paused: '#1565c0', ok: '#b0b0b0' } as const;
const NODE_FILL: Readonly<Record<string, string>> = { host: '#f5f5f5', tor: '#e8eef7', leaf: '#e3e9f3', spine: '#dde4f0', switch: '#e3e9f3' };
const NODE_H = 26;
const CHAR_PX = 7.2;
const LEGEND_H = 30;

/** The bundled ELK (no worker thread): a CommonJS module whose export is the constructor. */
type ElkConstructor = new () => ELK;
const Elk = ((elkBundled as unknown as { default?: ElkConstructor }).default ?? elkBundled) as unknown as ElkConstructor;

/** The picture as one `<svg>`: nodes placed by ELK, links as straight lines between them, a legend above. */
export async function topologySvg(title: string, nodes: readonly PictureNode[], links: readonly LinkOutcome[]): Promise<string> {
  const tier = (name: string): number => TIER[nodes.find((n) => n.name === name)?.role ?? 'switch'] ?? 1;
  const nodeOf = (port: string): string => port.slice(0, port.indexOf(':'));
  const graph: ElkNode = {
    id: 'pod',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'DOWN',
      'elk.randomSeed': '1',
      'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
      'elk.spacing.nodeNode': '18',
      'elk.layered.spacing.nodeNodeBetweenLayers': '70',
      'elk.padding': '[top=10,left=10,bottom=10,right=10]',
    },
    children: nodes.map((n) => ({ id: n.name, width: Math.max(48, Math.ceil(n.name.length * CHAR_PX) + 16), height: NODE_H })),
    edges: links.map((l, i) => {
      const [a, b] = [nodeOf(l.a), nodeOf(l.b)];
      const down = tier(a) < tier(b) || (tier(a) === tier(b) && a <= b);
      return { id: `l${i}`, sources: [down ? a : b], targets: [down ? b : a] };
    }),
  };
  const laid = await new Elk().layout(graph);
  const at = new Map((laid.children ?? []).map((c: ElkNode) => [c.id, { x: c.x ?? 0, y: (c.y ?? 0) + LEGEND_H, w: c.width ?? 0, h: c.height ?? 0 }]));
  const width = Math.max(Math.ceil(laid.width ?? 0), 420);
  const height = Math.ceil(laid.height ?? 0) + LEGEND_H;
  const n = (x: number): string => String(Math.round(x * 10) / 10);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="topology" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>${esc(title)}</title>`,
    '<rect width="100%" height="100%" fill="white"/>',
  ];
  let lx = 10;
  for (const [state, colour] of Object.entries(LINK_COLOURS)) {
    out.push(`<line x1="${lx}" y1="14" x2="${lx + 22}" y2="14" stroke="${colour}" stroke-width="${state === 'ok' ? 1.5 : 4}"/><text x="${lx + 27}" y="18">${state === 'ok' ? 'no trouble' : state}</text>`);
    lx += 40 + (state === 'ok' ? 70 : state.length * CHAR_PX);
  }
  // Trouble drawn last, so a coloured link is never hidden under a grey one.
  const ordered = links.map((l, i) => ({ l, i })).sort((x, y) => Number(x.l.states.length > 0) - Number(y.l.states.length > 0) || x.i - y.i);
  for (const { l } of ordered) {
    const [a, b] = [at.get(nodeOf(l.a)), at.get(nodeOf(l.b))];
    if (a === undefined || b === undefined) continue;
    const state = l.states[0] ?? 'ok';
    const cls = ['link', ...l.states].join(' ');
    const tip = [`${l.a} — ${l.b}`, ...l.notes].join('\n');
    out.push(
      `<line class="${cls}" data-link="${esc(`${l.a} ${l.b}`)}" data-state="${state}" x1="${n(a.x + a.w / 2)}" y1="${n(a.y + a.h / 2)}" x2="${n(b.x + b.w / 2)}" y2="${n(b.y + b.h / 2)}" stroke="${LINK_COLOURS[state]}" stroke-width="${state === 'ok' ? 1.5 : 4}"><title>${esc(tip)}</title></line>`,
    );
  }
  for (const node of nodes) {
    const p = at.get(node.name);
    if (p === undefined) continue;
    out.push(
      `<g class="node" data-node="${esc(node.name)}"><rect x="${n(p.x)}" y="${n(p.y)}" width="${n(p.w)}" height="${n(p.h)}" rx="5" fill="${NODE_FILL[node.role] ?? '#eee'}" stroke="#555"/><text x="${n(p.x + p.w / 2)}" y="${n(p.y + p.h / 2 + 4)}" text-anchor="middle">${esc(node.name)}</text></g>`,
    );
  }
  out.push('</svg>');
  return out.join('\n');
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
