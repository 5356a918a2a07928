/**
 * The synthetic hook doctor sends: a moment the vendor mappings record silently or as a
 * plainly named fallback, under a session id that says where it came from, so a check never
 * looks like agent activity.
 */
import { DOCTOR_SESSION, isSyntheticHook, type VendorId } from '../../../common/vendors';

/** The session id of doctor's synthetic hooks (the hook route records nothing of it). */
export { DOCTOR_SESSION, isSyntheticHook };

/** A harmless hook payload in the vendor's own shape. */
export function syntheticPayload(vendor: VendorId, cwd: string): Record<string, unknown> {
  switch (vendor) {
    case 'claude-code':
    case 'codex':
    case 'qwen-code':
      // PreCompact emits nothing for these three (AEP-0002 Annex A deviations).
      return {
        hook_event_name: 'PreCompact',
        session_id: DOCTOR_SESSION,
        cwd,
        trigger: 'manual',
        transcript_path: null,
      };
    case 'vscode':
      return {
        hook_event_name: 'AepCompanionDoctor',
        session_id: DOCTOR_SESSION,
        cwd,
        timestamp: new Date(0).toISOString(),
      };
    case 'hermes':
      return {
        hook_event_name: 'aep_companion_doctor',
        tool_name: null,
        tool_input: null,
        session_id: DOCTOR_SESSION,
        cwd,
        extra: {},
      };
    case 'cline':
      return {
        hookName: 'aep_companion_doctor',
        taskId: DOCTOR_SESSION,
        sessionContext: { rootSessionId: DOCTOR_SESSION },
        workspaceRoots: [cwd],
        timestamp: new Date(0).toISOString(),
      };
  }
}
