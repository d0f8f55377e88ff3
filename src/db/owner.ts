import { readFileSync } from 'node:fs';

/**
 * Naming a process so that another can tell later whether it still runs: its pid and, on Linux, its start
 * time (the pair names one process for the machine's uptime, so a reused pid is not mistaken for it).
 * Used by the data directory's lock (src/db/open.ts) and by a backup's leftovers (src/db/leftovers.ts).
 */

/** `pid starttime` on Linux (the pair names one process for the machine's uptime), else `pid`. */
export function describeProcess(pid: number): string {
  const start = procStat(pid)?.startTime;
  return start ? `${pid} ${start}` : String(pid);
}

/** State and start time from /proc/<pid>/stat; null where there is no procfs or no such process. */
function procStat(pid: number): { state: string; startTime: string } | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // "pid (comm) state ppid ..." where comm may hold spaces and parentheses; starttime is field 22.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0], startTime: fields[19] };
}

/** Whether the process a lock names still runs: it exists, is not a zombie, and is the same process. */
export function holderRuns(lock: string): boolean {
  const [pidText, startTime] = lock.split(' ');
  const pid = Number(pidText);
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = procStat(pid);
  if (!stat) return true; // no procfs (or it hides the process): kill(0) found it
  if (stat.state === 'Z' || stat.state === 'X' || stat.state === 'x') return false;
  return startTime === undefined || startTime === stat.startTime;
}
