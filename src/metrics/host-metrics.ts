import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CallFinished, FileJobEvent, Host, SweepFinished } from '../host/host.js';

export interface HostMetricsOptions {
  /** Open MCP sessions on this front, read at each scrape. */
  sessions?: () => number;
  /** Add Node's process metrics (CPU, memory, event-loop lag). Default true. */
  processMetrics?: boolean;
}

export interface HostMetrics {
  readonly registry: Registry;
  /** The Content-Type of {@link render}'s text. */
  readonly contentType: string;
  /** The Prometheus text exposition of every metric. */
  render(): Promise<string>;
  /** Stops listening to the host (the registry keeps its last values). */
  close(): void;
}

const durationBuckets = [0.005, 0.025, 0.1, 0.5, 1, 5, 15, 60, 300];
const unknownTool = '(unknown)';

/**
 * The operators' view of one host, in its own prom-client registry (never the
 * global default one, so two hosts in a process, or a test's hosts, never mix
 * their counts). Everything is learned from the host's events and health
 * report: the host knows nothing of metrics.
 */
export function createHostMetrics(host: Host, options: HostMetricsOptions = {}): HostMetrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const counter = <Label extends string>(name: string, help: string, labelNames: readonly Label[] = []) =>
    new Counter<Label>({ name, help, labelNames, registers });
  const gauge = <Label extends string>(name: string, help: string, labelNames: readonly Label[] = []) =>
    new Gauge<Label>({ name, help, labelNames, registers });
  const histogram = <Label extends string>(name: string, help: string, labelNames: readonly Label[] = []) =>
    new Histogram<Label>({ name, help, labelNames, buckets: durationBuckets, registers });

  const calls = counter('spillway_tool_calls_total', 'Tool calls finished, by tool and outcome (ok or error).', ['tool', 'outcome']);
  const errors = counter('spillway_tool_errors_total', 'Failed tool calls by error code.', ['code']);
  const callSeconds = histogram('spillway_tool_call_duration_seconds', 'Time from a call arriving to its answer.', ['outcome']);
  const spillFiles = counter('spillway_spill_files_total', 'Files written by spills (results, errors and binary parts).');
  const spillBytes = counter('spillway_spill_bytes_total', 'Bytes written by spills.');
  const screened = counter(
    'spillway_screening_findings_total',
    'What screening found in results: category secret (action redact or flag), injection or invisible (action flag).',
    ['category', 'action'],
  );

  const jobsQueued = gauge('spillway_file_jobs_queued', 'File-building jobs waiting for a worker thread.');
  const jobsRunning = gauge('spillway_file_jobs_running', 'File-building jobs running on a worker thread.');
  const jobs = counter('spillway_file_jobs_total', 'File-building jobs finished, by kind and outcome (ok or failed).', ['kind', 'outcome']);
  const jobErrors = counter('spillway_file_job_errors_total', 'Failed file-building jobs by error code.', ['kind', 'code']);
  const jobWait = histogram('spillway_file_job_wait_seconds', 'Time a file-building job waited for a thread.', ['kind']);
  const jobRun = histogram('spillway_file_job_run_seconds', 'Time a file-building job ran on its thread.', ['kind', 'outcome']);

  const sweeps = counter('spillway_sweeps_total', 'Retention sweeps by outcome (ok, locked: another sweep held the lock, failed).', ['outcome']);
  const sweepFiles = counter('spillway_sweep_files_removed_total', 'Files removed by retention sweeps (age and quota).');
  const sweepBytes = counter('spillway_sweep_bytes_removed_total', 'Bytes removed by retention sweeps.');
  const sweepSeconds = histogram('spillway_sweep_duration_seconds', 'Duration of retention sweeps that ran.');

  if (options.sessions !== undefined) {
    const sessions = options.sessions;
    new Gauge({
      name: 'spillway_sessions',
      help: 'Open MCP sessions on this replica.',
      registers,
      collect() {
        this.set(sessions());
      },
    });
  }
  new Gauge({
    name: 'spillway_upstream_connected',
    help: 'Upstream MCP servers: 1 when connected, 0 otherwise (label state says which state).',
    labelNames: ['upstream', 'state'],
    registers,
    collect() {
      this.reset();
      for (const [name, state] of upstreamStates(host)) this.set({ upstream: name, state }, state === 'connected' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'spillway_coordination_connected',
    help: 'The coordination store (Redis) when configured: 1 when connected, 0 otherwise; absent without one.',
    labelNames: ['store'],
    registers,
    collect() {
      this.reset();
      const report = coordinationReport(host);
      if (report !== undefined) this.set({ store: report.store }, report.connected ? 1 : 0);
    },
  });

  new Gauge({
    name: 'spillway_fleet_file_jobs',
    help: "File-building jobs in the fleet's queue (Redis), by state (waiting, active, failed); refreshed at most once a second. Absent without Redis.",
    labelNames: ['state'],
    registers,
    collect() {
      this.reset();
      for (const [state, count] of Object.entries(fleetJobCounts(host))) this.set({ state }, count);
    },
  });

  // Admission queues, read from host.queues at each scrape (names such as exports, sql, upstream:github).
  new Gauge({
    name: 'spillway_queue_running',
    help: 'Calls admitted and running, per admission queue.',
    labelNames: ['queue'],
    registers,
    collect() {
      this.reset();
      for (const [queue, stats] of Object.entries(host.queues.report())) this.set({ queue }, stats.running);
    },
  });
  new Gauge({
    name: 'spillway_queue_waiting',
    help: 'Calls waiting for a slot, per admission queue.',
    labelNames: ['queue'],
    registers,
    collect() {
      this.reset();
      for (const [queue, stats] of Object.entries(host.queues.report())) this.set({ queue }, stats.waiting);
    },
  });
  new Gauge({
    name: 'spillway_queue_limit',
    help: 'Calls allowed running plus waiting, per admission queue.',
    labelNames: ['queue'],
    registers,
    collect() {
      this.reset();
      for (const [queue, stats] of Object.entries(host.queues.report())) this.set({ queue }, stats.limit);
    },
  });
  new Gauge({
    name: 'spillway_queue_refused',
    help: 'Calls refused since start, per admission queue and reason (full: over the caps; deadline: waited server.queueWaitMs).',
    labelNames: ['queue', 'reason'],
    registers,
    collect() {
      this.reset();
      for (const [queue, stats] of Object.entries(host.queues.report())) {
        this.set({ queue, reason: 'full' }, stats.refused.full);
        this.set({ queue, reason: 'deadline' }, stats.refused.deadline);
      }
    },
  });

  const onCall = (call: CallFinished) => {
    const tool = host.getTool(call.tool) === undefined ? unknownTool : call.tool;
    calls.inc({ tool, outcome: call.outcome });
    callSeconds.observe({ outcome: call.outcome }, call.durationMs / 1000);
    if (call.errorCode !== undefined) errors.inc({ code: call.errorCode });
    for (const file of call.files) {
      spillFiles.inc();
      spillBytes.inc(file.bytes);
    }
    const found = call.screening;
    if (found !== undefined) {
      if (found.secrets > 0) screened.inc({ category: 'secret', action: found.secretAction }, found.secrets);
      if (found.injections > 0) screened.inc({ category: 'injection', action: 'flag' }, found.injections);
      if (found.invisible > 0) screened.inc({ category: 'invisible', action: 'flag' }, found.invisible);
    }
  };
  const onFileJob = (job: FileJobEvent) => {
    if (job.phase === 'queued') jobsQueued.inc();
    else if (job.phase === 'started') {
      jobsQueued.dec();
      jobsRunning.inc();
      jobWait.observe({ kind: job.kind }, job.waitMs / 1000);
    } else {
      if (job.started) jobsRunning.dec();
      else jobsQueued.dec();
      jobs.inc({ kind: job.kind, outcome: job.outcome });
      if (job.errorCode !== undefined) jobErrors.inc({ kind: job.kind, code: job.errorCode });
      if (job.runMs !== undefined) jobRun.observe({ kind: job.kind, outcome: job.outcome }, job.runMs / 1000);
    }
  };
  const onSweep = (sweep: SweepFinished) => {
    sweeps.inc({ outcome: sweep.outcome });
    sweepFiles.inc(sweep.filesRemoved);
    sweepBytes.inc(sweep.bytesRemoved);
    if (sweep.durationMs !== undefined && sweep.outcome === 'ok') sweepSeconds.observe(sweep.durationMs / 1000);
  };
  host.on('call', onCall);
  host.on('file-job', onFileJob);
  host.on('sweep', onSweep);

  return {
    registry,
    contentType: registry.contentType,
    render: () => registry.metrics(),
    close() {
      host.off('call', onCall);
      host.off('file-job', onFileJob);
      host.off('sweep', onSweep);
    },
  };
}

/** [name, state] of each upstream, from the host's "upstreams" health section. */
function upstreamStates(host: Host): [string, string][] {
  const section = host.health().upstreams;
  if (typeof section !== 'object' || section === null) return [];
  return Object.entries(section).flatMap(([name, report]) => {
    const state = (report as { state?: unknown } | null)?.state;
    return typeof state === 'string' ? [[name, state] as [string, string]] : [];
  });
}

/** The fleet's job counts by state, from the host's "workers" health section (empty on a single process). */
function fleetJobCounts(host: Host): Record<string, number> {
  const fleet = (host.health().workers as { fleet?: unknown } | undefined)?.fleet;
  if (typeof fleet !== 'object' || fleet === null) return {};
  return Object.fromEntries(Object.entries(fleet).filter((entry): entry is [string, number] => typeof entry[1] === 'number'));
}

/** The coordination store's state, from the host's "coordination" health section. */
function coordinationReport(host: Host): { store: string; connected: boolean } | undefined {
  const section = host.health().coordination as { store?: unknown; connected?: unknown } | undefined;
  if (typeof section !== 'object' || section === null || typeof section.store !== 'string') return undefined;
  return { store: section.store, connected: section.connected === true };
}
