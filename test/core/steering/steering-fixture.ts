/**
 * Real SQLite (temp file) plus a recording channel, for the steering unit tests: the engine, the
 * permission loop and the kill switch run against the real repositories; the channel records what
 * they stamp and send instead of going through a relay.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { AepEvent } from '../../../common/aep/envelope';
import type { VendorId } from '../../../common/vendors';
import { createLogger } from '../../../main/core/logger';
import { vendorAdapter } from '../../../main/core/vendors/index';
import { sessionSource } from '../../../main/core/steering/vendor-emitter';
import { AuditLog } from '../../../main/core/store/audit-log';
import { openDb } from '../../../main/core/store/open-db';
import { SessionsRepo } from '../../../main/core/store/sessions-repo';
import { SettingsRepo } from '../../../main/core/store/settings-repo';
import { SteeringRepo } from '../../../main/core/store/steering-repo';
import { auditSink } from '../../../main/core/steering/audit-sink';
import { ControlAcks } from '../../../main/core/steering/control-acks';
import { KillSwitch } from '../../../main/core/steering/kill-switch';
import { SteeringEngine } from '../../../main/core/steering/steering-engine';
import type { EventDraft, VendorChannel } from '../../../main/core/steering/steering-types';

/** A channel that stamps like the vendor emitter and records every send (JSON text as the relay would serialize it). */
export class RecordingChannel implements VendorChannel {
  readonly sent: string[] = [];
  private seq = new Map<string, number>();
  private n = 0;

  constructor(
    readonly vendor: VendorId,
    private readonly clock: () => number,
  ) {}

  stamp(session: string, drafts: readonly EventDraft[]): AepEvent[] {
    return drafts.map((d) => {
      const seq = (this.seq.get(session) ?? 0) + 1;
      this.seq.set(session, seq);
      this.n += 1;
      return {
        aep: '0.1',
        id: `EVT${String(this.n).padStart(6, '0')}`,
        type: d.type,
        ...(d.subject !== undefined ? { subject: d.subject } : {}),
        time: new Date(this.clock()).toISOString(),
        source: sessionSource(this.vendor, session),
        agent: this.vendor,
        session,
        seq,
        epoch: 0,
        ...(d.cause !== undefined ? { cause: d.cause } : {}),
        ...(d.severity !== undefined ? { severity: d.severity } : {}),
        ...(d.capture !== undefined ? { capture: d.capture } : {}),
        data: d.data ?? {},
      } as AepEvent;
    });
  }

  async send(events: readonly AepEvent[]): Promise<void> {
    for (const e of events) this.sent.push(JSON.stringify(e));
  }

  /** Sent events, parsed. */
  events(): AepEvent[] {
    return this.sent.map((t) => JSON.parse(t) as AepEvent);
  }

  /** Sent events of one type. */
  ofType(type: string): AepEvent[] {
    return this.events().filter((e) => e.type === type);
  }
}

/** The engine and its real parts over a temp database. */
export interface SteeringFixture {
  readonly db: Database;
  readonly dir: string;
  readonly settings: SettingsRepo;
  readonly sessions: SessionsRepo;
  readonly repo: SteeringRepo;
  readonly audit: AuditLog;
  readonly acks: ControlAcks;
  readonly killSwitch: KillSwitch;
  readonly engine: SteeringEngine;
  readonly clock: { now: number };
  channel(vendor: VendorId): RecordingChannel;
  /** Records a hook sighting of a session (as the tracker does). */
  see(vendor: VendorId, session: string, options?: { instruct?: boolean; permissions?: boolean }): void;
  close(): void;
}

/** Builds a fixture over a fresh (or the given) data directory. */
export function steeringFixture(options: { dir?: string; now?: number } = {}): SteeringFixture {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'aep-steering-'));
  const db = openDb(join(dir, 'companion.db'));
  const clock = { now: options.now ?? Date.parse('2026-11-29T10:00:00.000Z') };
  const now = (): number => clock.now;
  const settings = new SettingsRepo(db);
  const sessions = new SessionsRepo(db);
  const repo = new SteeringRepo(db);
  const audit = new AuditLog(db);
  const logger = createLogger('test');
  const sink = auditSink(audit, now, logger);
  const acks = new ControlAcks(repo, now);
  const killSwitch = new KillSwitch(settings, sink);
  const channels = new Map<VendorId, RecordingChannel>();
  const channel = (vendor: VendorId): RecordingChannel => {
    let c = channels.get(vendor);
    if (!c) channels.set(vendor, (c = new RecordingChannel(vendor, now)));
    return c;
  };
  const engine = new SteeringEngine({
    repo,
    sessions,
    acks,
    audit: sink,
    clock: now,
    logger,
    enabled: () => killSwitch.enabled,
    idleExpiryMs: () => settings.get('steering.idleExpiryMs'),
    profile: (vendor) => vendorAdapter(vendor).profile,
    channel,
  });
  return {
    db,
    dir,
    settings,
    sessions,
    repo,
    audit,
    acks,
    killSwitch,
    engine,
    clock,
    channel,
    see: (vendor, session, o = {}) => {
      sessions.touch({
        source: sessionSource(vendor, session),
        session,
        agent: vendor,
        vendor,
        cwd: '/work',
        hook: 'UserPromptSubmit',
        instructOptIn: o.instruct ?? true,
        permissionsOptIn: o.permissions ?? false,
        nowMs: clock.now,
      });
    },
    close: () => {
      killSwitch.close();
      db.close();
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

let counter = 0;

/** An instruct command from the console. */
export function instruct(vendor: VendorId, session: string, text: unknown, extra: Record<string, unknown> = {}): AepEvent {
  counter += 1;
  return {
    aep: '0.1',
    id: `CMD${String(counter).padStart(6, '0')}`,
    type: `x.${vendor}.control.instruct`,
    time: '2026-11-29T10:00:00.000Z',
    source: 'aep://test/console',
    agent: 'operator',
    session,
    surface: 'console',
    data: { text },
    ...extra,
  } as AepEvent;
}
