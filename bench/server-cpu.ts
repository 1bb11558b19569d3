// Server CPU time per request, the bench's figure where two kinds of request share a machine
// with other work: a rate moves with whatever else runs, while the CPU a server spends on each
// request it serves moves far less. Read from the scheduler's own counts.
import { readdirSync, readFileSync } from 'node:fs';
import type { WrkResult, WrkRun } from './wrk.js';

/** CPU time of every thread of a process so far, in microseconds (the scheduler's nanosecond counts). */
export function cpuMicros(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended meanwhile; its time is gone from the count, which a thread of the
      // server's pools rarely does inside one run
    }
  }
  return ns / 1000;
}

export interface CpuTarget {
  run: Omit<WrkRun, 'seconds'>;
  /** The serving process, whose CPU is read before and after each run. */
  pid: number;
}

export interface CpuRun {
  result: WrkResult;
  /** Server CPU time over the run per request served, in microseconds. */
  cpuPerRequest: number;
}

/**
 * Short wrk runs of each target in turn, `rounds` times, after a 1 s warm-up of each, with the
 * serving process's CPU per request of each run. The order flips every round (A B, B A, A B, ...),
 * so that neither target always follows the other: what one run leaves behind (garbage to
 * collect, a cooler cache) falls on both sides alike.
 */
export async function alternateWithCpu(
  runWrk: (run: WrkRun) => Promise<WrkResult>,
  targets: CpuTarget[],
  rounds: number,
  seconds: number,
): Promise<CpuRun[][]> {
  for (const t of targets) await runWrk({ ...t.run, seconds: 1 });
  const out: CpuRun[][] = targets.map(() => []);
  for (let round = 0; round < rounds; round++) {
    const order = targets.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      const before = cpuMicros(targets[i].pid);
      const result = await runWrk({ ...targets[i].run, seconds });
      out[i].push({ result, cpuPerRequest: (cpuMicros(targets[i].pid) - before) / result.requests });
    }
  }
  return out;
}

/** Per round, the first target's CPU per request over the second's (a ratio >= 1 when the second is cheaper). */
export function cpuRatios(first: CpuRun[], second: CpuRun[]): number[] {
  return first.map((run, i) => run.cpuPerRequest / second[i].cpuPerRequest);
}
