// Where a phase's CPU went on the whole machine: /proc/stat's busy time, split by the long-lived
// processes of the local control plane, the controller and the bench itself. What is left
// ("short-lived") is mostly the helm processes and their counting wrappers, which have exited
// by the time the phase ends and so cannot be read one by one.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux x86-64/arm64

/** The control plane's processes by their (15-character) comm name. */
const NAMED = ['kube-apiserver', 'etcd', 'redis-server', 'kwok', 'kube-controller', 'kube-scheduler'];

export interface CpuSnapshot {
  machineTicks: number;
  byProcess: Map<number, { name: string; ticks: number }>;
}

function machineBusyTicks(): number {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal …: busy is everything but idle and iowait.
  const [user, nice, system, , , irq, softirq, steal] = cpu;
  return user! + nice! + system! + irq! + softirq! + (steal ?? 0);
}

function processTicks(pid: number): { name: string; ticks: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { name, ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

export function cpuSnapshot(): CpuSnapshot {
  const byProcess = new Map<number, { name: string; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const t = processTicks(Number(entry));
    if (t) byProcess.set(Number(entry), t);
  }
  return { machineTicks: machineBusyTicks(), byProcess };
}

/** CPU seconds per role between two snapshots; `ctlPid` is the controller (also a "node"). */
export function cpuBreakdown(before: CpuSnapshot, after: CpuSnapshot, roles: { ctlPid?: number; benchPid: number }): Record<string, number> {
  const out: Record<string, number> = { machine: (after.machineTicks - before.machineTicks) / TICKS_PER_SECOND };
  let known = 0;
  for (const [pid, now] of after.byProcess) {
    const was = before.byProcess.get(pid);
    const ticks = now.ticks - (was && was.name === now.name ? was.ticks : 0);
    const role = pid === roles.ctlPid ? 'controller' : pid === roles.benchPid ? 'bench' : NAMED.includes(now.name) ? now.name : undefined;
    if (!role || ticks <= 0) continue;
    out[role] = (out[role] ?? 0) + ticks / TICKS_PER_SECOND;
    known += ticks;
  }
  out['short-lived'] = out.machine! - known / TICKS_PER_SECOND;
  return out;
}

export function formatBreakdown(b: Record<string, number>): string {
  return Object.entries(b)
    .sort(([a], [c]) => (a === 'machine' ? -1 : c === 'machine' ? 1 : 0))
    .map(([k, v]) => `${k} ${v.toFixed(1)}`)
    .join('; ');
}
