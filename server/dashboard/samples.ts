import { readFile } from "node:fs/promises";
import { cpus, freemem, totalmem } from "node:os";
import type { DashboardMetrics } from "../../contract/dashboard";

type Point = DashboardMetrics["points"][number];
type Counters = Map<string, { rx: number; tx: number }>;

/** Bytes received and sent per interface since boot, from /proc/net/dev (empty where there is none). */
export async function readNetDev(file = "/proc/net/dev"): Promise<Counters> {
  const counters: Counters = new Map();
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return counters;
  }
  // "  eth0: 1234 5 0 0 0 0 0 0 5678 9 ..." — receive bytes is the first field, transmit bytes the ninth.
  for (const line of text.split("\n").slice(2)) {
    const match = /^\s*([^:\s]+):\s*(.*)$/.exec(line);
    if (!match) continue;
    const fields = match[2]!.trim().split(/\s+/).map(Number);
    if (fields.length < 9 || !Number.isFinite(fields[0]) || !Number.isFinite(fields[8])) continue;
    counters.set(match[1]!, { rx: fields[0]!, tx: fields[8]! });
  }
  return counters;
}

function cpuTimes() {
  let idle = 0;
  let total = 0;
  for (const { times } of cpus()) {
    idle += times.idle;
    total += times.user + times.nice + times.sys + times.idle + times.irq;
  }
  return { idle, total };
}

/**
 * The dashboard's CPU and network charts: every `intervalMs` the engine reads the CPU times of all
 * cores and each interface's byte counters and keeps the rates since the previous reading, for the
 * last `windowMs` (a ring of windowMs / intervalMs points). Samples use the wall clock: they measure
 * the machine, not the engine's (test) clock.
 */
export function createSampler(options: { intervalMs: number; windowMs: number }) {
  const { intervalMs, windowMs } = options;
  const capacity = Math.max(1, Math.floor(windowMs / intervalMs));
  const ring: Point[] = [];
  let previous: { t: number; cpu: ReturnType<typeof cpuTimes>; net: Counters } | null = null;
  let timer: NodeJS.Timeout | null = null;
  let taking: Promise<void> = Promise.resolve();

  async function take() {
    const net = await readNetDev();
    const now = { t: Date.now(), cpu: cpuTimes(), net };
    if (previous && now.t > previous.t) {
      const seconds = (now.t - previous.t) / 1000;
      const busy = now.cpu.total - previous.cpu.total;
      const cpu = busy > 0 ? (100 * (busy - (now.cpu.idle - previous.cpu.idle))) / busy : 0;
      const rates: Point["net"] = {};
      for (const [name, c] of net) {
        const before = previous.net.get(name);
        // A counter that went back (interface reset, 32-bit wrap) gives no rate for this step.
        if (before && c.rx >= before.rx && c.tx >= before.tx) rates[name] = { rx: (c.rx - before.rx) / seconds, tx: (c.tx - before.tx) / seconds };
      }
      ring.push({ t: now.t, cpu: Math.min(100, Math.max(0, cpu)), memory: (100 * (totalmem() - freemem())) / totalmem(), net: rates });
      if (ring.length > capacity) ring.splice(0, ring.length - capacity);
    }
    previous = now;
  }

  return {
    start() {
      if (timer) return;
      taking = take();
      timer = setInterval(() => {
        taking = taking.then(take).catch(() => undefined);
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await taking.catch(() => undefined);
    },
    series(): DashboardMetrics {
      return { intervalMs, windowMs, points: [...ring] };
    },
  };
}

export type Sampler = ReturnType<typeof createSampler>;
