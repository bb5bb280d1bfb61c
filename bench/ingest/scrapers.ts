import { readFileSync } from 'node:fs';
import pg from 'pg';
import { cpuSeconds } from '../proc.js';

/** The server processes' own figures (their `/metrics`) and what the machine says of them (/proc). */
export class ServerScraper {
  constructor(
    private servers: { url: string; pid: number }[],
    private readonly token: string,
  ) {}

  /** The servers were started again (new processes on the same ports). */
  retarget(servers: { url: string; pid: number }[]): void {
    this.servers = servers;
  }

  /** A server's Prometheus figures, as text. */
  async scrape(url: string): Promise<string> {
    return (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${this.token}` } })).text();
  }

  /** CPU seconds the servers used so far. */
  cpu(): number {
    const pids = new Set(this.servers.map((s) => s.pid));
    return cpuSeconds((pid) => pids.has(pid));
  }

  rssMb(): number {
    return this.servers.reduce(
      (sum, s) => sum + Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${s.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
      0,
    );
  }

  /**
   * Every server's `/metrics` at once. Each scrape starts a new window of the event loop's longest stall,
   * so a measurement scrapes once at its start and once at its end.
   */
  async metrics(): Promise<Metrics> {
    return new Metrics(await Promise.all(this.servers.map((s) => this.scrape(s.url))));
  }
}

/** The servers' Prometheus figures at one moment. */
export class Metrics {
  constructor(readonly texts: string[]) {}

  /** The values of the lines starting with `prefix` (a name, with its labels' opening when it has them), of every server. */
  values(prefix: string): number[] {
    return this.texts.flatMap((text) =>
      text
        .split('\n')
        .filter((l) => l.startsWith(prefix))
        .map((l) => Number(l.slice(l.lastIndexOf(' ') + 1))),
    );
  }

  sum(prefix: string): number {
    return this.values(prefix).reduce((a, b) => a + b, 0);
  }

  /** Ingest's statements so far and the batches they wrote. */
  groups(): Groups {
    return { statements: this.sum('rtcscope_ingest_group_batches_count '), batches: this.sum('rtcscope_ingest_group_batches_sum ') };
  }

  /** The longest event-loop stall since the scrape before (the most of any server), and seconds spent in GC so far. */
  loop(): { lagMaxS: number; gcS: number; majorGcS: number; longGcs: number } {
    return {
      lagMaxS: Math.max(...this.values('rtcscope_nodejs_eventloop_lag_max_seconds ')),
      gcS: this.sum('rtcscope_nodejs_gc_duration_seconds_sum'),
      majorGcS: this.sum('rtcscope_nodejs_gc_duration_seconds_sum{kind="major"}'),
      // Pauses of 100 ms or more, of any kind: all of them less those within the 0.1 s bucket.
      longGcs: this.sum('rtcscope_nodejs_gc_duration_seconds_count') - this.sum('rtcscope_nodejs_gc_duration_seconds_bucket{le="0.1"'),
    };
  }

  /** The insights' jobs so far: rounds of each and their seconds, calls summarized, days rolled up. */
  insights(): Insights {
    const job = (name: string) => ({
      rounds: this.sum(`rtcscope_insights_round_seconds_count{job="${name}"}`),
      seconds: this.sum(`rtcscope_insights_round_seconds_sum{job="${name}"}`),
    });
    return {
      summaries: job('summaries'),
      rollups: job('rollups'),
      calls: this.sum('rtcscope_summarized_calls_total '),
      days: this.sum('rtcscope_rolled_up_days_total '),
    };
  }

  /** Alert evaluation so far (`alertTimes`). */
  alerts(): AlertTimes {
    return alertTimes(this.texts);
  }
}

export interface Insights {
  summaries: { rounds: number; seconds: number };
  rollups: { rounds: number; seconds: number };
  calls: number;
  days: number;
}

/** What happened between two readings of `Metrics.insights`. */
export function insightsBetween(a: Insights, b: Insights): Insights {
  const job = (x: Insights['summaries'], y: Insights['summaries']) => ({ rounds: y.rounds - x.rounds, seconds: y.seconds - x.seconds });
  return { summaries: job(a.summaries, b.summaries), rollups: job(a.rollups, b.rollups), calls: b.calls - a.calls, days: b.days - a.days };
}

/** Ingest's statements (group commit) and the batches they wrote. */
export interface Groups {
  statements: number;
  batches: number;
}

/** Alert evaluation so far, summed over the servers (one evaluates each round): rounds, their seconds, and each condition kind's. */
export interface AlertTimes {
  rounds: number;
  seconds: number;
  /** Rounds that took more than 0.25 s. */
  slow: number;
  kinds: Map<string, { n: number; seconds: number }>;
}

/** The alert figures of `/metrics` texts (rtcscope_alert_evaluation_seconds, rtcscope_alert_condition_seconds). */
export function alertTimes(texts: string[]): AlertTimes {
  const times: AlertTimes = { rounds: 0, seconds: 0, slow: 0, kinds: new Map() };
  let fast = 0;
  for (const text of texts) {
    for (const line of text.split('\n')) {
      const value = Number(line.slice(line.lastIndexOf(' ') + 1));
      if (line.startsWith('rtcscope_alert_evaluation_seconds_count ')) times.rounds += value;
      else if (line.startsWith('rtcscope_alert_evaluation_seconds_sum ')) times.seconds += value;
      else if (line.startsWith('rtcscope_alert_evaluation_seconds_bucket{le="0.25"}')) fast += value;
      const kind = /^rtcscope_alert_condition_seconds_(sum|count)\{kind="([^"]+)"\}/.exec(line);
      if (kind) {
        const k = times.kinds.get(kind[2]!) ?? { n: 0, seconds: 0 };
        if (kind[1] === 'count') k.n += value;
        else k.seconds += value;
        times.kinds.set(kind[2]!, k);
      }
    }
  }
  times.slow = times.rounds - fast;
  return times;
}

/** What happened between two readings of `alertTimes`. */
export function alertTimesBetween(a: AlertTimes, b: AlertTimes): AlertTimes {
  const kinds = new Map(
    [...b.kinds].map(([kind, k]) => [
      kind,
      { n: k.n - (a.kinds.get(kind)?.n ?? 0), seconds: k.seconds - (a.kinds.get(kind)?.seconds ?? 0) },
    ]),
  );
  return { rounds: b.rounds - a.rounds, seconds: b.seconds - a.seconds, slow: b.slow - a.slow, kinds };
}

export type WaitTally = { samples: number; busy: Map<string, number> };

/** The nice value of a process: the server lowers compaction's backends to 19. */
function niceOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  } catch {
    return 0;
  }
}

/** What PostgreSQL says of itself while the load runs, on connections of the benchmark's own. */
export class DatabaseScraper {
  private constructor(
    private readonly stats: pg.Client,
    private readonly waits: pg.Client,
  ) {}

  static async open(url: string): Promise<DatabaseScraper> {
    const [stats, waits] = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
    await Promise.all([stats.connect(), waits.connect()]);
    return new DatabaseScraper(stats, waits);
  }

  /** CPU seconds PostgreSQL's processes used so far. */
  cpu(): number {
    return cpuSeconds((_pid, comm) => comm === 'postgres');
  }

  /**
   * Checkpoints begun (by time or by WAL volume), the full-page images written to the WAL (each page's
   * first change after a checkpoint begins) and the blocks the server's compaction wrote, so far: to
   * tell their latency spikes from the ingest's.
   */
  async wal(): Promise<{ checkpoints: number; fpi: number; bytes: number; blocks: number }> {
    const { rows } = await this.stats.query<{ checkpoints: number; fpi: number; bytes: number; blocks: number }>(
      `SELECT (SELECT (num_timed + num_requested)::float8 FROM pg_stat_checkpointer) AS checkpoints,
              wal_fpi::float8 AS fpi, wal_bytes::float8 AS bytes,
              (SELECT coalesce(sum(n_tup_ins), 0)::float8 FROM pg_stat_user_tables WHERE relname LIKE 'stream\\_block\\_%') AS blocks
         FROM pg_stat_wal`,
    );
    return rows[0]!;
  }

  /**
   * What the database's backends wait on, sampled every 20 ms until `until`: the share of busy samples
   * per wait event (none: on a CPU or waiting for one), for the backends at normal priority (ingest
   * and the server's other work) and for those at the lowest (compaction's chunks).
   */
  /**
   * Live calls (a sample in the last 10 minutes, not ended), how many of them have a summary more than
   * `dueS` + 10 s old (or none, begun that long ago), and the oldest summary's age, s.
   */
  async liveSummaries(dueS: number): Promise<{ live: number; behind: number; oldestS: number }> {
    const { rows } = await this.stats.query<{ live: number; behind: number; oldest_s: number | null }>(
      `SELECT count(*)::int AS live, count(*) FILTER (WHERE since < now() - make_interval(secs => $1 + 10))::int AS behind,
              extract(epoch FROM now() - min(since))::float8 AS oldest_s
         FROM (SELECT coalesce(summarized_at, started_at) AS since FROM call
                WHERE ended_at IS NULL AND last_seen_at > now() - interval '10 minutes') live`,
      [dueS],
    );
    return { live: rows[0]!.live, behind: rows[0]!.behind, oldestS: rows[0]!.oldest_s ?? 0 };
  }

  async sampleWaits(until: () => boolean): Promise<{ normal: WaitTally; lowest: WaitTally }> {
    const tally = () => ({ samples: 0, busy: new Map<string, number>() });
    const result = { normal: tally(), lowest: tally() };
    while (!until()) {
      const { rows } = await this.waits.query<{ pid: number; event: string | null }>(
        `SELECT pid, wait_event_type || ':' || wait_event AS event FROM pg_stat_activity
          WHERE state = 'active' AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      );
      result.normal.samples++;
      result.lowest.samples++;
      for (const { pid, event } of rows) {
        const t = niceOf(pid) > 0 ? result.lowest : result.normal;
        const key = event ?? 'CPU';
        t.busy.set(key, (t.busy.get(key) ?? 0) + 1);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    return result;
  }

  async close(): Promise<void> {
    await Promise.all([this.stats.end(), this.waits.end()]);
  }
}
