/**
 * config.txt → the switches of the imported pod (docs/hpcc-ns3-import.md): buffer, ECN by port
 * rate, PFC α by port rate, the simulator's ECMP. rocelab has one ECN setting and one α per
 * switch where the simulator has one per port: a switch takes those of most of its ports.
 */
import { group, idList, mostCommon } from './import-hpcc-graph.js';
import type { HpccTopology } from './import-hpcc-files.js';
import type { ConfigReader } from './import-hpcc-reader.js';

/** `defaults.switch`, and each switch's own `switch:` where it differs (set on `nodes`, indexed by id). */
export function hpccSwitches(r: ConfigReader, topo: HpccTopology, role: readonly string[], nodes: Array<Record<string, unknown>>): Record<string, unknown> {
  const sw: Record<string, unknown> = { bufferBytes: `${r.get<number>('BUFFER_SIZE', 16)}MiB`, ecmpHash: 'hpcc-ns3', ecmpOrder: 'hpcc-bfs' };
  if (r.get<number>('BUFFER_SIZE', 16) === 0) r.refuse('BUFFER_SIZE', 'a buffer of at least 1 MiB per switch');
  const S = ['defaults', 'switch'] as const;
  r.note([...S, 'bufferBytes'], `${r.where('BUFFER_SIZE')} (MB of 2²⁰ B, third.cc ConfigBufferSize(buffer_size * 1024 * 1024)); headroom per port 3 · rate · delay / 8 and the 4096 B reserve are the hpcc-ns3 profile's (third.cc ConfigHdrm, switch-mmu.cc)`);
  r.note([...S, 'ecmpHash'], 'the simulator\'s ECMP hash, seeded with the switch\'s id as its node index (switch-node.cc m_ecmpSeed = m_id, GetOutDev), and its next-hop order (third.cc CalculateRoute)');
  if (!r.get('USE_DYNAMIC_PFC_THRESHOLD', true)) r.approx('USE_DYNAMIC_PFC_THRESHOLD', [...S, 'bufferBytes'], 'the simulator never reads it (QbbNetDevice m_dynamicth is unused; switch-mmu.cc GetPfcThreshold is always dynamic), so the threshold stays dynamic');
  const kmin = r.get<Map<number, number>>('KMIN_MAP', new Map());
  const kmax = r.get<Map<number, number>>('KMAX_MAP', new Map());
  const pmax = r.get<Map<number, number>>('PMAX_MAP', new Map());
  const enableQcn = r.get('ENABLE_QCN', true);
  const hostIds = [...Array(topo.nodeCount).keys()].filter((id) => role[id] === 'host');
  // third.cc get_nic_rate: the rate of the first host's first device.
  const nicLink = topo.links.find((l) => l.a === hostIds[0] || l.b === hostIds[0]);
  const nicRate = nicLink?.rateBps ?? 0;
  const perSwitch = new Map<number, { ecn: Record<string, unknown>; alpha: number | null }>();
  const mixedEcn = new Map<string, number[]>();
  const mixedAlpha = new Map<string, number[]>();
  for (const id of topo.switches) {
    const own = topo.links.filter((l) => l.a === id || l.b === id);
    if (own.length === 0) continue;
    const rates = [...new Set(own.map((l) => l.rateBps))].sort((x, y) => y - x);
    for (const rate of rates) {
      for (const [key, map] of [['KMIN_MAP', kmin], ['KMAX_MAP', kmax], ['PMAX_MAP', pmax]] as const) {
        if (!map.has(rate)) r.refuse(key, `an entry for every switch port rate: ${rate} b/s (switch ${id}, ${topo.file}:${own.find((l) => l.rateBps === rate)!.line}) is missing (third.cc asserts "must set ${key.slice(0, 4).toLowerCase()} for each link speed")`);
      }
    }
    const ecnOf = (rate: number) => ({ enabled: enableQcn, kmin: `${kmin.get(rate)}KB`, kmax: `${kmax.get(rate)}KB`, pmax: pmax.get(rate)! });
    // rocelab has one ECN setting and one α per switch: those of most of its ports (of the faster on a tie).
    const ecnRate = mostCommon(own.map((l) => l.rateBps));
    const ecn = ecnOf(ecnRate);
    if (rates.some((rate) => JSON.stringify(ecnOf(rate)) !== JSON.stringify(ecn))) {
      group(mixedEcn, `ports at ${rates.join(', ')} b/s with different ECN thresholds: rocelab sets one per switch, those of most of its ports (${ecnRate} b/s)`, id);
    }
    // third.cc main: pfc_a_shift starts at 3 and drops by one per halving of the port rate above the NIC rate.
    const shifts = own.map((l) => {
      let shift = 3;
      let rate = l.rateBps;
      while (rate > nicRate && shift > 0) {
        shift--;
        rate /= 2;
      }
      return shift;
    });
    const shift = mostCommon(shifts);
    if (new Set(shifts).size > 1) group(mixedAlpha, `ports with PFC α = 2^-pfc_a_shift for shifts ${[...new Set(shifts)].sort().join(', ')} (third.cc main sets the shift by port rate): rocelab has one α per switch, 2^-${shift}, that of most of its ports`, id);
    perSwitch.set(id, { ecn, alpha: shift === 3 ? null : 2 ** -shift });
  }
  for (const [message, ids] of mixedEcn) r.approx('KMIN_MAP', null, `switch${ids.length > 1 ? 'es' : ''} ${idList(ids)} ${ids.length > 1 ? 'have' : 'has'} ${message}`);
  for (const [message, ids] of mixedAlpha) r.approx('BUFFER_SIZE', null, `switch${ids.length > 1 ? 'es' : ''} ${idList(ids)} ${ids.length > 1 ? 'have' : 'has'} ${message}`);
  // The ECN most switches have goes under defaults; a switch with other thresholds gets its own.
  const ecnCounts = new Map<string, number>();
  for (const v of perSwitch.values()) ecnCounts.set(JSON.stringify(v.ecn), (ecnCounts.get(JSON.stringify(v.ecn)) ?? 0) + 1);
  const commonEcn = [...ecnCounts.entries()].sort((x, y) => y[1] - x[1])[0]?.[0];
  if (commonEcn !== undefined) {
    sw.ecn = JSON.parse(commonEcn) as unknown;
    r.note([...S, 'ecn'], `ECN by port rate (${r.where('KMIN_MAP')}; ${r.where('KMAX_MAP')}; ${r.where('PMAX_MAP')}; ${r.where('ENABLE_QCN')}): kmin/kmax in KB of 1000 B (switch-mmu.cc ConfigEcn: _kmin * 1000)${ecnCounts.size > 1 ? '; switches whose ports are mostly at another rate have their own' : ''}`);
  }
  for (const [id, s] of perSwitch) {
    const own: Record<string, unknown> = {};
    if (JSON.stringify(s.ecn) !== commonEcn) own.ecn = s.ecn;
    if (s.alpha !== null) own.alpha = s.alpha;
    if (Object.keys(own).length > 0) nodes[id]!.switch = own;
  }

  return sw;
}
