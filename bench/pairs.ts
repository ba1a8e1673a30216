/**
 * Interleaved pairs: a scenario and its baseline run in turn (the order swapped every round), and the
 * row reports the median of the per-round ratios, so a machine that slows down mid-run moves both.
 */
import { type Measure, median } from './load';
import { cpuTimes, stealNote, stealShare } from './steal';
import { log } from './processes';
import type { Row } from './report';

/** `steal`: each round's share of wanted CPU time the hypervisor took (null where it is not known). */
export interface PairResult { figure: Measure[]; baseline: Measure[]; ratios: number[]; steal: (number | null)[] }

export const throughputRatio = (f: Measure, b: Measure) => (b.rps > 0 ? f.rps / b.rps : 0);

export async function pair(label: string, rounds: number, figure: () => Promise<Measure>, baseline: () => Promise<Measure>, ratio: (f: Measure, b: Measure) => number = throughputRatio): Promise<PairResult> {
  const out: PairResult = { figure: [], baseline: [], ratios: [], steal: [] };
  for (let round = 0; round < rounds; round++) {
    const before = cpuTimes();
    let f: Measure;
    let b: Measure;
    if (round % 2 === 0) {
      f = await figure();
      b = await baseline();
    } else {
      b = await baseline();
      f = await figure();
    }
    out.figure.push(f);
    out.baseline.push(b);
    out.ratios.push(ratio(f, b));
    const steal = stealShare(before, cpuTimes());
    out.steal.push(steal);
    log(`${label} round ${round + 1}: figure ${f.rps.toFixed(0)}/s p99 ${f.p99.toFixed(1)} ms (errors ${f.errors}); baseline ${b.rps.toFixed(0)}/s p99 ${b.p99.toFixed(1)} ms; ratio ${ratio(f, b).toFixed(3)}${steal === null ? '' : `; steal ${(steal * 100).toFixed(0)} %`}`);
  }
  return out;
}

export function rowOf(id: string, scenario: string, baseline: string, result: PairResult, unit: 'req/s' | 'p99 ms', target: string, meets: (ratio: number) => boolean, note?: string): Row {
  const pick = (m: Measure) => (unit === 'req/s' ? m.rps : m.p99);
  const ratio = median(result.ratios);
  const notes = [note, stealNote(result)].filter(Boolean).join('; ');
  return {
    id,
    scenario,
    baseline,
    figure: median(result.figure.map(pick)),
    baselineFigure: median(result.baseline.map(pick)),
    unit,
    ratio,
    target,
    met: meets(ratio),
    p50Ms: median(result.figure.map((m) => m.p50)),
    p99Ms: median(result.figure.map((m) => m.p99)),
    ...(notes ? { note: notes } : {}),
  };
}
