/**
 * config.txt → the switches of the imported pod (docs/hpcc-ns3-import.md): buffer, ECN by port
 * rate (`ecn.byRate`), PFC α by port rate (`alphaByRate`), the simulator's ECMP. Every map is
 * keyed by rate as third.cc's are, so it goes under `defaults.switch` for all switches.
 */
import { rateText } from './import-hpcc-graph.js';
import type { HpccTopology } from './import-hpcc-files.js';
import type { ConfigReader } from './import-hpcc-reader.js';

/** `defaults.switch`: the same for every switch, as third.cc configures each port by its rate alone. */
export function hpccSwitches(r: ConfigReader, topo: HpccTopology, role: readonly string[]): Record<string, unknown> {
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
  const portRates = new Set<number>();
  for (const id of topo.switches) {
    const own = topo.links.filter((l) => l.a === id || l.b === id);
    for (const rate of [...new Set(own.map((l) => l.rateBps))].sort((x, y) => y - x)) {
      portRates.add(rate);
      for (const [key, map] of [['KMIN_MAP', kmin], ['KMAX_MAP', kmax], ['PMAX_MAP', pmax]] as const) {
        if (!map.has(rate)) r.refuse(key, `an entry for every switch port rate: ${rate} b/s (switch ${id}, ${topo.file}:${own.find((l) => l.rateBps === rate)!.line}) is missing (third.cc asserts "must set ${key.slice(0, 4).toLowerCase()} for each link speed")`);
      }
    }
  }
  const rates = [...portRates].sort((x, y) => x - y);
  // third.cc main "config switch": each port j of a switch takes ConfigEcn(j, rate2kmin[rate], rate2kmax[rate],
  // rate2pmax[rate]) for its own rate; one set when every port rate has the same, else ecn.byRate (exact).
  const red = (rate: number) => ({ kmin: `${kmin.get(rate)}KB`, kmax: `${kmax.get(rate)}KB`, pmax: pmax.get(rate)! });
  if (rates.length > 0) {
    const sets = new Set(rates.map((rate) => JSON.stringify(red(rate))));
    sw.ecn = sets.size === 1 ? { enabled: enableQcn, ...red(rates[0]!) } : { enabled: enableQcn, byRate: rates.map((rate) => ({ rate: rateText(rate), ...red(rate) })) };
    r.note([...S, 'ecn'], `ECN by port rate (${r.where('KMIN_MAP')}; ${r.where('KMAX_MAP')}; ${r.where('PMAX_MAP')}; ${r.where('ENABLE_QCN')}): kmin/kmax in KB of 1000 B (switch-mmu.cc ConfigEcn: _kmin * 1000)${sets.size > 1 ? '; each egress port takes its link rate\'s (third.cc main: ConfigEcn(j, rate2kmin[rate], …))' : ''}`);
  }
  // third.cc main: pfc_a_shift[j] starts at 3 and drops by one per halving of the port's rate (integer
  // division) down to the NIC rate; switch-mmu.cc GetPfcThreshold(port) shifts by the ingress port's.
  const shiftOf = (portRate: number): number => {
    let shift = 3;
    let rate = portRate;
    while (rate > nicRate && shift > 0) {
      shift--;
      rate = Math.floor(rate / 2);
    }
    return shift;
  };
  const alphaByRate = rates.filter((rate) => shiftOf(rate) !== 3).map((rate) => ({ rate: rateText(rate), alpha: 2 ** -shiftOf(rate) }));
  if (alphaByRate.length > 0) {
    sw.alphaByRate = alphaByRate;
    r.note([...S, 'alphaByRate'], `PFC α = 2^-pfc_a_shift of each ingress port by its rate: shift 3 (α 1/8, the profile's) less one per doubling above the NIC rate ${rateText(nicRate)} (third.cc main, get_nic_rate; switch-mmu.cc GetPfcThreshold)`);
  }

  return sw;
}
