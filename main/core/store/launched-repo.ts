/**
 * The `launched_sessions` table (migration 0070): one row per session the companion launched; and,
 * for the restart after a crash, the runs of a session its stored events left open.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { AgentId, AgentProtocol, LaunchedState } from '../../../common/agents';
import { isAgentId } from '../../../common/agents';
import { openAttentionLookup } from './open-attention';

/** One row as the core uses it. */
export interface LaunchedRow {
  readonly source: string;
  readonly session: string;
  readonly agent: AgentId;
  readonly protocol: AgentProtocol;
  readonly cwd: string;
  readonly command: readonly string[];
  readonly agentInfo: Record<string, unknown> | null;
  readonly capabilities: Record<string, unknown>;
  readonly pid: number | null;
  readonly state: LaunchedState;
  readonly startedAtMs: number;
  readonly updatedAtMs: number;
  readonly endedAtMs: number | null;
  readonly endReason: string | null;
}

interface Raw {
  source: string;
  session: string;
  agent: string;
  protocol: string;
  cwd: string;
  command_json: string;
  agent_info: string | null;
  capabilities: string;
  pid: number | null;
  state: string;
  started_at_ms: number;
  updated_at_ms: number;
  ended_at_ms: number | null;
  end_reason: string | null;
}

const parse = (text: string | null): Record<string, unknown> | null => {
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

const STATES: readonly LaunchedState[] = ['starting', 'idle', 'generating', 'ended', 'resumable'];

const toRow = (r: Raw): LaunchedRow => ({
  source: r.source,
  session: r.session,
  agent: isAgentId(r.agent) ? r.agent : 'claude-code',
  protocol: r.protocol === 'codex-app-server' ? 'codex-app-server' : 'acp',
  cwd: r.cwd,
  command: (() => {
    try {
      const v = JSON.parse(r.command_json) as unknown;
      return Array.isArray(v) ? v.map(String) : [];
    } catch {
      return [];
    }
  })(),
  agentInfo: parse(r.agent_info),
  capabilities: parse(r.capabilities) ?? {},
  pid: r.pid,
  state: (STATES as readonly string[]).includes(r.state) ? (r.state as LaunchedState) : 'ended',
  startedAtMs: r.started_at_ms,
  updatedAtMs: r.updated_at_ms,
  endedAtMs: r.ended_at_ms,
  endReason: r.end_reason,
});

/** A run whose `run.started` is stored with no terminal after it: the id of that event and the run. */
export interface OpenRun {
  readonly startedId: string;
  readonly run: string;
}

/** A tool call whose `tool.requested` is stored in a run with no settlement after it. */
export interface OpenTool {
  readonly requestedId: string;
  readonly callId: string;
  readonly name: string;
}

/** Repository of `launched_sessions`. */
export class LaunchedRepo {
  private readonly insert: Statement<Record<string, unknown>>;
  private readonly setStateStmt: Statement<Record<string, unknown>>;
  private readonly getStmt: Statement<[string]>;
  private readonly listStmt: Statement<[]>;
  private readonly openStmt: Statement<[]>;
  private readonly openRunsStmt: Statement<[string, string]>;
  private readonly openToolsStmt: Statement<[string, string, string]>;
  /** The ids of a session's attention requests the stored events left open (stream order). */
  readonly openAttention: (source: string, session: string) => string[];

  constructor(db: Database) {
    this.insert = db.prepare(`
      INSERT INTO launched_sessions (source, session, agent, protocol, cwd, command_json, agent_info, capabilities, pid, state,
                                     started_at_ms, updated_at_ms, ended_at_ms, end_reason)
      VALUES (@source, @session, @agent, @protocol, @cwd, @command, @agentInfo, @capabilities, @pid, @state, @now, @now, NULL, NULL)
      ON CONFLICT (source, session) DO UPDATE SET
        pid = excluded.pid, state = excluded.state, capabilities = excluded.capabilities, agent_info = excluded.agent_info,
        command_json = excluded.command_json, updated_at_ms = excluded.updated_at_ms, ended_at_ms = NULL, end_reason = NULL`);
    this.setStateStmt = db.prepare(`
      UPDATE launched_sessions SET state = @state, updated_at_ms = @now,
        ended_at_ms = CASE WHEN @state IN ('ended', 'resumable') THEN COALESCE(ended_at_ms, @now) ELSE NULL END,
        end_reason = CASE WHEN @reason IS NOT NULL THEN @reason ELSE end_reason END,
        pid = CASE WHEN @state IN ('ended', 'resumable') THEN NULL ELSE pid END
      WHERE session = @session AND agent = @agent`);
    this.getStmt = db.prepare('SELECT * FROM launched_sessions WHERE session = ? ORDER BY updated_at_ms DESC LIMIT 1');
    this.listStmt = db.prepare('SELECT * FROM launched_sessions ORDER BY started_at_ms DESC');
    this.openStmt = db.prepare("SELECT * FROM launched_sessions WHERE state NOT IN ('ended', 'resumable')");
    this.openRunsStmt = db.prepare(`
      SELECT s.id AS startedId, json_extract(s.json, '$.run') AS run FROM events s
      WHERE s.session = ? AND s.source = ? AND s.type = 'run.started' AND json_extract(s.json, '$.run') IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM events t
                        WHERE t.session = s.session AND t.source = s.source AND t.type IN ('run.finished', 'run.failed', 'run.cancelled')
                          AND json_extract(t.json, '$.run') = json_extract(s.json, '$.run'))
      ORDER BY s.ord_epoch, s.ord_seq, s.ord_tie, s.n`);
    this.openToolsStmt = db.prepare(`
      SELECT s.id AS requestedId, json_extract(s.json, '$.subject') AS callId, json_extract(s.json, '$.data.tool.name') AS name FROM events s
      WHERE s.session = ? AND s.source = ? AND s.type = 'tool.requested' AND json_extract(s.json, '$.run') = ?
        AND json_extract(s.json, '$.subject') IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM events t
                        WHERE t.session = s.session AND t.source = s.source AND t.type IN ('tool.completed', 'tool.failed', 'tool.denied')
                          AND json_extract(t.json, '$.subject') = json_extract(s.json, '$.subject')
                          AND json_extract(t.json, '$.run') = json_extract(s.json, '$.run'))
      ORDER BY s.ord_epoch, s.ord_seq, s.ord_tie, s.n`);
    this.openAttention = openAttentionLookup(db);
  }

  /** Records a started (or resumed) session. */
  started(r: { source: string; session: string; agent: AgentId; protocol: AgentProtocol; cwd: string; command: readonly string[]; agentInfo: unknown; capabilities: unknown; pid: number | null; nowMs: number }): void {
    this.insert.run({
      source: r.source,
      session: r.session,
      agent: r.agent,
      protocol: r.protocol,
      cwd: r.cwd,
      command: JSON.stringify(r.command),
      agentInfo: r.agentInfo === null || r.agentInfo === undefined ? null : JSON.stringify(r.agentInfo),
      capabilities: JSON.stringify(r.capabilities ?? {}),
      pid: r.pid,
      state: 'idle',
      now: r.nowMs,
    });
  }

  setState(agent: AgentId, session: string, state: LaunchedState, nowMs: number, reason: string | null = null): void {
    this.setStateStmt.run({ agent, session, state, now: nowMs, reason });
  }

  get(session: string): LaunchedRow | null {
    const r = this.getStmt.get(session) as Raw | undefined;
    return r ? toRow(r) : null;
  }

  list(): LaunchedRow[] {
    return (this.listStmt.all() as Raw[]).map(toRow);
  }

  /** Rows a previous daemon left neither ended nor resumable (it crashed, or was killed). */
  leftOpen(): LaunchedRow[] {
    return (this.openStmt.all() as Raw[]).map(toRow);
  }

  /** The session's runs the stored events show started and never ended (in stream order). */
  openRuns(source: string, session: string): OpenRun[] {
    return (this.openRunsStmt.all(session, source) as { startedId: string; run: unknown }[]).map((r) => ({ startedId: r.startedId, run: String(r.run) }));
  }

  /** The run's tool calls the stored events show requested and never settled (in stream order). */
  openTools(source: string, session: string, run: string): OpenTool[] {
    return (this.openToolsStmt.all(session, source, run) as { requestedId: string; callId: unknown; name: unknown }[]).map((r) => ({
      requestedId: r.requestedId,
      callId: String(r.callId),
      name: typeof r.name === 'string' ? r.name : 'tool',
    }));
  }
}
