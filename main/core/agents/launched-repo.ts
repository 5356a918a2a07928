/** The `launched_sessions` table (migration 0070): one row per session the companion launched. */
import type { Database, Statement } from 'better-sqlite3';
import type { AgentId, AgentProtocol, LaunchedState } from '../../../common/agents';
import { isAgentId } from '../../../common/agents';

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

/** Repository of `launched_sessions`. */
export class LaunchedRepo {
  private readonly insert: Statement<Record<string, unknown>>;
  private readonly setStateStmt: Statement<Record<string, unknown>>;
  private readonly getStmt: Statement<[string]>;
  private readonly listStmt: Statement<[]>;
  private readonly openStmt: Statement<[]>;

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
}
