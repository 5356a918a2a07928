/**
 * The session timeline model: one row per thing that happened, with the events that complete
 * it folded in (a tool request and its result, an attention request and its lifecycle, an
 * instruction and its ack and outcome). Built in one linear pass over the ordered log.
 */
import type { AepEvent } from '../../../common/aep/envelope';
import { attentionOutcome } from './attention-items';
import { settle } from './command-settlement';
import { INPUT_EVENT, isSendInput, settleInput } from './input-items';
import { dataNumber, dataString, isDelivered, isDropped, isInstruct, isRunEnd, toolCallId, toolName } from './event-types';
import { toolCommand, unwrapShell } from './shell-command';

/** Changes to a session's queue: Stop's hold and its end, edits and reorders (launched and hook path). */
const QUEUE_CHANGE = /^x\.[a-z0-9-]+\.(?:input|instruction)\.(queue_paused|queue_resumed|edited|reordered)$/;

/** Filter categories of the timeline. */
export const CATEGORIES = ['runs', 'tools', 'attention', 'steering', 'session', 'other'] as const;
/** One filter category. */
export type Category = (typeof CATEGORIES)[number];

/** Human names of the categories. */
export const CATEGORY_NAMES: Readonly<Record<Category, string>> = {
  runs: 'Prompts & runs',
  tools: 'Tools',
  attention: 'Attention',
  steering: 'Steering',
  session: 'Session',
  other: 'Other',
};

/** Visual tone of a row's status. */
export type Tone = 'ok' | 'warn' | 'bad' | 'pending' | 'neutral' | 'accent';

/** One row of the timeline. */
export interface TimelineRow {
  readonly key: string;
  readonly category: Category;
  readonly kind: 'prompt' | 'reply' | 'run-end' | 'tool' | 'attention' | 'instruction' | 'session' | 'other';
  readonly time: string;
  readonly seq: number | undefined;
  title: string;
  detail: string;
  status: { tone: Tone; label: string } | null;
  readonly events: AepEvent[];
  /** The prompt turn (run) the row belongs to: 0 before the first prompt, then 1, 2, … */
  readonly turn: number;
  /** The row's content was left out by the capture level (said once, above the timeline). */
  uncaptured: boolean;
  /** Protocol plumbing (usage updates, acks, status pings): shown only with the details toggle. */
  plumbing: boolean;
}

/** One prompt turn (run) of the timeline. */
export interface TurnInfo {
  readonly turn: number;
  /** Key of the turn's prompt row (absent for turn 0). */
  readonly promptKey: string | null;
  rows: number;
  tools: number;
  ended: boolean;
  /** Tokens the turn used, where a source reported them (per response, or a running total). */
  tokens: { input: number; output: number } | null;
}

/** Short display of a duration in milliseconds. */
export function formatMs(ms: number | undefined): string {
  if (ms === undefined) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${Math.round((ms % 60_000) / 1000)} s`;
}

function oneLine(value: unknown, max = 160): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function argsSummary(e: AepEvent): string {
  const args = (e.data?.args ?? e.data?.args_redacted) as Record<string, unknown> | undefined;
  if (args && typeof args === 'object') {
    for (const k of ['file_path', 'path', 'pattern', 'url', 'query', 'description']) {
      if (typeof args[k] === 'string') return oneLine(args[k]);
    }
    return Object.keys(args).length === 0 ? '' : oneLine(args);
  }
  return dataString(e, 'args_digest') ? NOT_CAPTURED : '';
}

/** A tool row's title: what it did (the command, without its shell wrapper), else the tool's name. */
function toolTitle(e: AepEvent): string {
  const command = toolCommand(e);
  return command !== undefined ? `$ ${oneLine(command, 120)}` : toolName(e);
}

/** The detail beside a tool's title: the tool's name when the title is its command (unless it says the same), else its arguments. */
function toolDetail(e: AepEvent): string {
  const command = toolCommand(e);
  if (command === undefined) return argsSummary(e);
  const name = toolName(e);
  return name === command || unwrapShell(name) === command ? '' : name;
}

/** Usage updates, acks, status pings and the agent's command list: plumbing, shown only with the details toggle. */
const PLUMBING = /^(x\.[a-z0-9_-]+\.(usage\.(updated|reported)|session\.info\.update|available\.commands\.update|tool_call\.update|plan\.updated|input\.(sent|received|admitted|settled))|progress\.status|agent\.heartbeat|control\.accepted)$/;

/** True for an event that is plumbing whatever its data. */
function isPlumbing(e: AepEvent): boolean {
  if (PLUMBING.test(e.type)) return true;
  if (e.type === 'control.cancel' && e.data?.scope === 'run') return true;
  // A subagent stop saying nothing (Claude Code sends `agent_type: ""` for its own internal agents) is plumbing.
  return e.type === 'delegation.subagent.stopped' && (e.data === undefined || Object.entries(e.data).filter(([k, v]) => k !== 'agent_id' && k !== 'subagent' && v !== '' && v !== null).length === 0);
}

/** The tokens an event reports: per response (added up) or as a running total (kept). */
function usageOf(e: AepEvent): { input: number; output: number; total: boolean } | null {
  const u = (e.data?.usage ?? e.data) as Record<string, unknown> | undefined;
  if (!u || typeof u !== 'object') return null;
  const input = typeof u['gen_ai.usage.input_tokens'] === 'number' ? (u['gen_ai.usage.input_tokens'] as number) : 0;
  const output = typeof u['gen_ai.usage.output_tokens'] === 'number' ? (u['gen_ai.usage.output_tokens'] as number) : 0;
  if (input === 0 && output === 0) return null;
  // ACP usage updates and a run's own usage are the turn's running totals; transcript responses add up.
  return { input, output, total: e.type.endsWith('.usage.updated') || e.type.startsWith('run.') };
}

/** Marks content the capture level left out; the timeline says so once, not per row. */
const NOT_CAPTURED = '\u0000not-captured';

function row(e: AepEvent, category: Category, kind: TimelineRow['kind'], title: string, detail = '', status: TimelineRow['status'] = null, turn = 0): TimelineRow {
  const uncaptured = detail === NOT_CAPTURED;
  return { key: `${e.source}\n${e.id}`, category, kind, time: e.time, seq: e.seq, title, detail: uncaptured ? '' : detail, status, events: [e], turn, uncaptured, plumbing: isPlumbing(e) };
}

function instructionStatus(r: TimelineRow): TimelineRow['status'] {
  const s = settle(r.events.slice(1), { sent: true, timedOut: false });
  switch (s.phase) {
    case 'delivered':
      return { tone: 'ok', label: `delivered at ${s.moment ?? 'hook'}${s.queuedMs !== undefined ? ` · queued ${formatMs(s.queuedMs)}` : ''}` };
    case 'dropped':
      return { tone: 'bad', label: `dropped (${s.reason ?? 'no reason given'})` };
    case 'rejected':
      return { tone: 'bad', label: `rejected (${s.reason ?? 'no reason'})` };
    case 'accepted':
      return { tone: 'pending', label: 'accepted · queued for the next hook' };
    default:
      return { tone: 'neutral', label: 'sent' };
  }
}

/**
 * Builds timeline rows incrementally: events appended to the log since the last update are
 * folded in without revisiting the rest, so a live burst costs what it adds, not the whole
 * history. A backfill into the middle of the log (rare) rebuilds from scratch.
 */
export class TimelineBuilder {
  rows: TimelineRow[] = [];
  counts: Record<Category, number> = { runs: 0, tools: 0, attention: 0, steering: 0, session: 0, other: 0 };
  turns: TurnInfo[] = [{ turn: 0, promptKey: null, rows: 0, tools: 0, ended: false, tokens: null }];
  /** Rows whose content the capture level left out. */
  uncaptured = 0;
  /** The capture levels those rows carried. */
  uncapturedLevels = new Set<string>();
  private processed = 0;
  private reorders = -1;
  private toolsById = new Map<string, TimelineRow>();
  private toolsByName = new Map<string, TimelineRow[]>();
  private attention = new Map<string, TimelineRow>();
  private commands = new Map<string, TimelineRow>();
  private respondToAttention = new Map<string, TimelineRow>();
  private openPrompt: TimelineRow | null = null;
  private inputs = new Map<string, TimelineRow>();
  /** The prompt text of each run started by an input the companion sent (a launch's first prompt). */
  private promptsByInput = new Map<string, string>();

  /** Brings the rows up to date with the log; true when anything changed. */
  update(log: { readonly events: readonly AepEvent[]; readonly reorders: number }): boolean {
    if (log.reorders !== this.reorders || log.events.length < this.processed) {
      this.reset();
      this.reorders = log.reorders;
    }
    const events = log.events;
    if (this.processed === events.length) return false;
    for (let i = this.processed; i < events.length; i++) this.consume(events[i]);
    this.processed = events.length;
    return true;
  }

  private reset(): void {
    this.rows = [];
    this.counts = { runs: 0, tools: 0, attention: 0, steering: 0, session: 0, other: 0 };
    this.turns = [{ turn: 0, promptKey: null, rows: 0, tools: 0, ended: false, tokens: null }];
    this.uncaptured = 0;
    this.uncapturedLevels = new Set();
    this.processed = 0;
    this.toolsById.clear();
    this.toolsByName.clear();
    this.attention.clear();
    this.commands.clear();
    this.respondToAttention.clear();
    this.openPrompt = null;
    this.inputs.clear();
    this.promptsByInput.clear();
  }

  private push(r: TimelineRow, at = this.rows.length): void {
    const turn = this.turns[this.turns.length - 1];
    (r as { turn: number }).turn = turn.turn;
    if (at < this.rows.length) this.rows.splice(at, 0, r);
    else this.rows.push(r);
    // Plumbing rows are counted by the details toggle, not by their category.
    if (!r.plumbing) this.counts[r.category]++;
    turn.rows++;
    if (r.kind === 'tool') turn.tools++;
    if (r.uncaptured) this.noteUncaptured(r.events[0]);
  }

  private noteUncaptured(e: AepEvent): void {
    this.uncaptured++;
    this.uncapturedLevels.add(e.capture ?? 'metadata');
  }

  /**
   * Where a reply of `run` goes: before that run's end row when the reply was read after the hook
   * that ended it (only plumbing rows between), else at the end.
   */
  private endOfRun(run: string | undefined): number {
    if (run === undefined) return this.rows.length;
    for (let i = this.rows.length - 1; i >= 0 && i >= this.rows.length - 64; i--) {
      const r = this.rows[i];
      if (r.kind === 'run-end') return r.events[0].run === run ? i : this.rows.length;
      if (!r.plumbing) return this.rows.length;
    }
    return this.rows.length;
  }

  /** Adds an event's token usage to its turn. */
  private count(e: AepEvent): void {
    const u = usageOf(e);
    if (u === null) return;
    const turn = this.turns[this.turns.length - 1];
    if (u.total || turn.tokens === null) turn.tokens = { input: u.input, output: u.output };
    else turn.tokens = { input: turn.tokens.input + u.input, output: turn.tokens.output + u.output };
  }

  /**
   * A turn that ended cancelled, failed or interrupted leaves its unanswered tool calls without a
   * result: they no longer read as running (a late result still settles them).
   */
  private closeOpenTools(run: string | undefined, how: string): void {
    const open = [...this.toolsById.values(), ...[...this.toolsByName.values()].flat()];
    for (const r of open) {
      if (r.status?.label !== 'running' || (run !== undefined && r.events[0].run !== undefined && r.events[0].run !== run)) continue;
      r.status = { tone: 'warn', label: `no result (turn ${how})` };
    }
  }

  /** Folds one event into the rows. */
  private consume(e: AepEvent): void {
    const t = e.type;
    if (t !== 'run.started') this.count(e);
    if (t === 'tool.requested') {
      const r = row(e, 'tools', 'tool', toolTitle(e), toolDetail(e), { tone: 'pending', label: 'running' });
      this.push(r);
      const id = toolCallId(e);
      if (id) this.toolsById.set(id, r);
      else {
        const queue = this.toolsByName.get(toolName(e)) ?? [];
        queue.push(r);
        this.toolsByName.set(toolName(e), queue);
      }
      return;
    }
    if (t === 'tool.completed' || t === 'tool.failed' || t === 'tool.denied') {
      const id = toolCallId(e);
      let r = id ? this.toolsById.get(id) : this.toolsByName.get(toolName(e))?.shift();
      if (id) this.toolsById.delete(id);
      if (!r) {
        r = row(e, 'tools', 'tool', toolTitle(e), toolDetail(e));
        this.push(r);
      } else r.events.push(e);
      if (t === 'tool.completed') {
        const status = dataString(e, 'status');
        r.status = { tone: status && status !== 'success' ? 'warn' : 'ok', label: `${status ?? 'done'}${dataNumber(e, 'duration_ms') !== undefined ? ` · ${formatMs(dataNumber(e, 'duration_ms'))}` : ''}` };
      } else if (t === 'tool.failed') {
        const error = e.data?.error as { message?: unknown; type?: unknown } | undefined;
        r.status = { tone: 'bad', label: `failed${error?.message ? `: ${oneLine(error.message, 80)}` : error?.type ? `: ${String(error.type)}` : ''}` };
      } else {
        r.status = { tone: 'warn', label: `denied by ${dataString(e, 'by') ?? 'policy'}` };
      }
      return;
    }
    if (t === 'x.acp.tool_call.update' && e.subject) {
      // The input of a call announced without it: its row is titled by the command it runs.
      const r = this.toolsById.get(e.subject);
      if (r && toolCommand(r.events[0]) === undefined && toolCommand(e) !== undefined) {
        r.title = toolTitle(e);
        r.detail = toolName(r.events[0]);
      }
    }
    if (t === 'attention.requested') {
      const kind = dataString(e, 'kind') ?? 'other';
      const r = row(e, 'attention', 'attention', `${kind[0].toUpperCase()}${kind.slice(1)} request`, oneLine(dataString(e, 'prompt')), { tone: 'warn', label: 'waiting for an answer' });
      this.push(r);
      this.attention.set(e.id, r);
      return;
    }
    if (t.startsWith('attention.') && e.subject && this.attention.has(e.subject)) {
      const r = this.attention.get(e.subject)!;
      r.events.push(e);
      const outcome = attentionOutcome(r.events.slice(1).filter((x) => x.type.startsWith('attention.')));
      r.status = { tone: outcome.tone, label: outcome.label };
      return;
    }
    if (t === 'control.attention.respond' && e.subject && this.attention.has(e.subject)) {
      const r = this.attention.get(e.subject)!;
      r.events.push(e);
      this.respondToAttention.set(e.id, r);
      return;
    }
    if (isSendInput(t)) {
      const text = dataString(e, 'text');
      const r = row(e, 'steering', 'instruction', 'Message', text !== undefined ? oneLine(text) : NOT_CAPTURED, { tone: 'neutral', label: 'sent' });
      this.push(r);
      this.inputs.set(e.id, r);
      return;
    }
    if (e.cause && ((this.inputs.has(e.cause) && (t === 'control.accepted' || t === 'control.rejected')) || INPUT_EVENT.test(t))) {
      let r = this.inputs.get(e.cause);
      if (!r) {
        // An input the companion sent itself (a launch's first prompt): its lifecycle, beside its Prompt row.
        const text = this.promptsByInput.get(e.cause);
        r = row(e, 'steering', 'instruction', 'Launch prompt', text !== undefined ? oneLine(text) : 'sent with the launch', null);
        r.plumbing = true;
        this.push(r);
        this.inputs.set(e.cause, r);
        const first = settleInput([e], null);
        r.status = { tone: first.tone, label: first.label };
        return;
      }
      r.events.push(e);
      // An edit while queued replaced the text the agent receives.
      const edited = /\.input\.edited$/.test(t) ? dataString(e, 'text') : undefined;
      if (edited !== undefined) r.detail = `${oneLine(edited)} (edited)`;
      const s = settleInput(r.events.filter((x) => !isSendInput(x.type)), null);
      r.status = { tone: s.tone, label: s.label };
      return;
    }
    if (isInstruct(t)) {
      const text = dataString(e, 'text');
      const r = row(e, 'steering', 'instruction', 'Instruction', text !== undefined ? oneLine(text) : NOT_CAPTURED, { tone: 'neutral', label: 'sent' });
      this.push(r);
      this.commands.set(e.id, r);
      return;
    }
    const queue = QUEUE_CHANGE.exec(t);
    if (queue) {
      const n = dataNumber(e, 'queued');
      const held = n === undefined ? '' : `${n} message${n === 1 ? '' : 's'} ${queue[1] === 'queue_resumed' ? 'released' : 'waiting'}`;
      const label = queue[1] === 'queue_paused' ? 'Queue paused by Stop' : queue[1] === 'queue_resumed' ? `Queue resumed (${dataString(e, 'by') === 'send' ? 'a new message went first' : 'Resume'})` : queue[1] === 'edited' ? 'Queued message edited' : 'Queue reordered';
      const detail = queue[1] === 'edited' ? (dataString(e, 'text') !== undefined ? oneLine(dataString(e, 'text') as string) : NOT_CAPTURED) : held;
      this.push(row(e, 'steering', 'other', label, detail));
      return;
    }
    if ((t === 'control.accepted' || t === 'control.rejected' || isDelivered(t) || isDropped(t)) && e.cause) {
      const r = this.commands.get(e.cause);
      if (r) {
        r.events.push(e);
        r.status = instructionStatus(r);
        return;
      }
      const a = this.respondToAttention.get(e.cause);
      if (a) {
        a.events.push(e);
        if (t === 'control.rejected') a.status = { tone: 'bad', label: `answer rejected (${dataString(e, 'reason') ?? 'no reason'})` };
        return;
      }
      const label = t === 'control.accepted' ? 'Command accepted' : t === 'control.rejected' ? `Command rejected (${dataString(e, 'reason') ?? ''})` : isDelivered(t) ? `Instruction delivered at ${dataString(e, 'moment') ?? 'hook'}` : `Instruction dropped (${dataString(e, 'reason') ?? ''})`;
      this.push(row(e, 'steering', 'other', label, `command ${e.cause}`));
      return;
    }
    if (t === 'run.started') {
      const prompt = dataString(e, 'prompt');
      const r = row(e, 'runs', 'prompt', 'Prompt', prompt !== undefined ? oneLine(prompt, 240) : NOT_CAPTURED, { tone: 'pending', label: 'running' });
      if (e.cause !== undefined && prompt !== undefined) {
        this.promptsByInput.set(e.cause, prompt);
        const launch = this.inputs.get(e.cause);
        if (launch !== undefined && launch.title === 'Launch prompt') launch.detail = oneLine(prompt);
      }
      this.turns.push({ turn: this.turns.length, promptKey: r.key, rows: 0, tools: 0, ended: false, tokens: null });
      // The run's own usage is a total for this turn; usage counted before the prompt stays with the turn before.
      this.count(e);
      this.openPrompt = r;
      this.push(r);
      return;
    }
    if (isRunEnd(t)) {
      const d = formatMs(dataNumber(e, 'duration_ms'));
      const label = t === 'run.finished' ? 'Run finished' : t === 'run.failed' ? `Run failed (${dataString(e, 'reason') ?? 'error'})` : 'Run cancelled';
      this.turns[this.turns.length - 1].ended = true;
      if (t !== 'run.finished') this.closeOpenTools(e.run, t.slice(4));
      if (this.openPrompt) {
        this.openPrompt.status = { tone: t === 'run.finished' ? 'ok' : t === 'run.failed' ? 'bad' : 'warn', label: `${t === 'run.finished' ? 'finished' : t.slice(4)}${d ? ` · ${d}` : ''}` };
        this.openPrompt = null;
      }
      this.push(row(e, 'runs', 'run-end', label, oneLine(dataString(e, 'summary') ?? ''), { tone: t === 'run.finished' ? 'ok' : t === 'run.failed' ? 'bad' : 'warn', label: d || t.slice(4) }));
      return;
    }
    if (/^x\.[a-z0-9_-]+\.message\.replied$/.test(t)) {
      const text = dataString(e, 'text');
      this.push(row(e, 'runs', 'reply', 'Reply', text !== undefined ? oneLine(text, 240) : NOT_CAPTURED), this.endOfRun(e.run));
      return;
    }
    if (/^x\.[a-z0-9_-]+\.run\.interrupted$/.test(t)) {
      // The user stopped the turn in the agent's own UI: no hook says so, the transcript does.
      this.turns[this.turns.length - 1].ended = true;
      this.closeOpenTools(e.run, 'interrupted');
      if (this.openPrompt) {
        this.openPrompt.status = { tone: 'warn', label: 'interrupted' };
        this.openPrompt = null;
      }
      this.push(row(e, 'runs', 'run-end', 'Interrupted', 'by the user', { tone: 'warn', label: 'interrupted' }));
      return;
    }
    if (/^x\.[a-z0-9_-]+\.session\.titled$/.test(t)) {
      this.push(row(e, 'session', 'session', 'Session titled', oneLine(dataString(e, 'title') ?? '')));
      return;
    }
    if (t.startsWith('session.')) {
      const title = t === 'session.started' ? 'Session started' : t === 'session.ended' ? 'Session ended' : `Session ${t.slice(8).replace(/[._]/g, ' ')}`;
      const detail = t === 'session.ended' ? (dataString(e, 'reason') ?? '') : (dataString(e, 'cwd') ?? dataString(e, 'label') ?? '');
      this.push(row(e, 'session', 'session', title, oneLine(detail)));
      return;
    }
    if (/^x\.[a-z0-9-]+\.session\.state$/.test(t)) {
      // A launched session's pushed state shows in its badges; only a lost connection is history.
      if (dataString(e, 'state') === 'resumable') this.push(row(e, 'session', 'session', 'Agent connection lost · resumable', oneLine(dataString(e, 'reason') ?? '')));
      return;
    }
    this.push(row(e, 'other', 'other', t, oneLine(e.data && Object.keys(e.data).length ? e.data : '')));
  }
}

/** Builds the rows of an ordered session log in one pass. */
export function buildTimeline(events: readonly AepEvent[]): TimelineRow[] {
  const builder = new TimelineBuilder();
  builder.update({ events, reorders: 0 });
  return builder.rows;
}
