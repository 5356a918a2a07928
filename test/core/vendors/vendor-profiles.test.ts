/** The per-vendor facts the steering engine and the console rely on (ARCHITECTURE §5, vendor hook research). */
import { describe, expect, it } from 'vitest';
import { VENDORS, VENDOR_NAMES } from '../../../common/vendors';
import {
  VENDOR_ADAPTERS,
  vendorAdapter,
  vendorProfiles,
} from '../../../main/core/vendors';

describe('vendor table', () => {
  it('has one adapter per vendor, keyed by its own id and named as the console names it', () => {
    for (const vendor of VENDORS) {
      expect(VENDOR_ADAPTERS[vendor].id).toBe(vendor);
      expect(VENDOR_ADAPTERS[vendor].profile.id).toBe(vendor);
      expect(VENDOR_ADAPTERS[vendor].profile.name).toBe(VENDOR_NAMES[vendor]);
      expect(vendorAdapter(vendor)).toBe(VENDOR_ADAPTERS[vendor]);
    }
    expect(vendorProfiles().map((profile) => profile.id)).toEqual([...VENDORS]);
  });
});

describe('delivery moments are the moments each runtime was seen to read', () => {
  it('Claude Code reads context from SessionStart, UserPromptSubmit, PreToolUse and PostToolUse', () => {
    expect(VENDOR_ADAPTERS['claude-code'].profile.deliveryMoments).toEqual([
      'SessionStart',
      'UserPromptSubmit',
      'PreToolUse',
      'PostToolUse',
    ]);
  });

  it('Codex counts the four moments whose context the pinned CLI reads, not Stop', () => {
    const moments = VENDOR_ADAPTERS.codex.profile.deliveryMoments;
    expect(moments).toEqual(['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse']);
    expect(moments).not.toContain('Stop');
  });

  it('Qwen Code counts SessionStart, UserPromptSubmit and PostToolUse, never PreToolUse', () => {
    expect(VENDOR_ADAPTERS['qwen-code'].profile.deliveryMoments).toEqual([
      'SessionStart',
      'UserPromptSubmit',
      'PostToolUse',
    ]);
    expect(VENDOR_ADAPTERS['qwen-code'].profile.deliveryMoments).not.toContain('PreToolUse');
  });

  it('Hermes reads context at pre_llm_call alone', () => {
    expect(VENDOR_ADAPTERS.hermes.profile.deliveryMoments).toEqual(['pre_llm_call']);
  });

  it('never lists a held moment as a delivery moment, but a gated one held only while the permission loop is on', () => {
    for (const vendor of VENDORS) {
      const adapter = VENDOR_ADAPTERS[vendor];
      const { deliveryMoments, permissionMoments } = adapter.profile;
      for (const moment of deliveryMoments.filter((m) => permissionMoments.includes(m))) {
        const call = { vendor, moment, session: 's1', raw: {}, payload: {} } as never;
        expect(adapter.isHeld(call, true), `${vendor} ${moment}`).toBe(true);
        expect(adapter.acceptsSteering(call, true), `${vendor} ${moment}`).toBe(false);
        expect(adapter.acceptsSteering(call, false), `${vendor} ${moment}`).toBe(true);
      }
    }
    expect(VENDOR_ADAPTERS.vscode.profile.deliveryMoments).toEqual(['SessionStart', 'UserPromptSubmit', 'SubagentStart', 'PreToolUse', 'PostToolUse']);
  });
});

describe('caps, session ends and permission moments', () => {
  it('caps Claude Code context at 10,000 characters and Codex, VS Code and Hermes not at all', () => {
    expect(VENDOR_ADAPTERS['claude-code'].profile.contextCap).toBe(10_000);
    expect(VENDOR_ADAPTERS.codex.profile.contextCap).toBeNull();
    expect(VENDOR_ADAPTERS.vscode.profile.contextCap).toBeNull();
    expect(VENDOR_ADAPTERS.hermes.profile.contextCap).toBeNull();
  });

  it('caps Qwen Code context at the 10,000 characters its hook runner truncates to', () => {
    expect(VENDOR_ADAPTERS['qwen-code'].profile.contextCap).toBe(10_000);
  });

  it('ends sessions at SessionEnd (CC, Qwen) and on_session_finalize (Hermes); Codex and VS Code have none', () => {
    expect(VENDOR_ADAPTERS['claude-code'].profile.sessionEndMoment).toBe('SessionEnd');
    expect(VENDOR_ADAPTERS['qwen-code'].profile.sessionEndMoment).toBe('SessionEnd');
    expect(VENDOR_ADAPTERS.hermes.profile.sessionEndMoment).toBe('on_session_finalize');
    expect(VENDOR_ADAPTERS.codex.profile.sessionEndMoment).toBeNull();
    expect(VENDOR_ADAPTERS.vscode.profile.sessionEndMoment).toBeNull();
  });

  it('offers answerable permission moments: the PermissionRequest family, VS Code’s gated PreToolUse, Hermes’s gated pre_tool_call', () => {
    expect(VENDOR_ADAPTERS['claude-code'].profile.permissionMoments).toEqual([
      'PermissionRequest',
      'Elicitation',
    ]);
    expect(VENDOR_ADAPTERS.codex.profile.permissionMoments).toEqual(['PermissionRequest']);
    expect(VENDOR_ADAPTERS['qwen-code'].profile.permissionMoments).toEqual(['PermissionRequest']);
    expect(VENDOR_ADAPTERS.vscode.profile.permissionMoments).toEqual(['PreToolUse']);
    expect(VENDOR_ADAPTERS.hermes.profile.permissionMoments).toEqual(['pre_tool_call']);
  });
});
