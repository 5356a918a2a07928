/** The AEP payload schemas as static JSON imports (bundles stay self-contained); kept in step with registry/types.json by a test. */
import agentHealth from '../../../resources/aep/schemas/types/agent.health.schema.json';
import agentHeartbeat from '../../../resources/aep/schemas/types/agent.heartbeat.schema.json';
import agentIdle from '../../../resources/aep/schemas/types/agent.idle.schema.json';
import agentPresence from '../../../resources/aep/schemas/types/agent.presence.schema.json';
import assessmentEvaluationRecorded from '../../../resources/aep/schemas/types/assessment.evaluation.recorded.schema.json';
import assessmentFeedbackReceived from '../../../resources/aep/schemas/types/assessment.feedback.received.schema.json';
import assessmentGuardrailRecorded from '../../../resources/aep/schemas/types/assessment.guardrail.recorded.schema.json';
import attentionAnswered from '../../../resources/aep/schemas/types/attention.answered.schema.json';
import attentionRequested from '../../../resources/aep/schemas/types/attention.requested.schema.json';
import attentionResolved from '../../../resources/aep/schemas/types/attention.resolved.schema.json';
import attentionRouted from '../../../resources/aep/schemas/types/attention.routed.schema.json';
import attentionTimeout from '../../../resources/aep/schemas/types/attention.timeout.schema.json';
import controlAccepted from '../../../resources/aep/schemas/types/control.accepted.schema.json';
import controlAttentionRespond from '../../../resources/aep/schemas/types/control.attention.respond.schema.json';
import controlCancel from '../../../resources/aep/schemas/types/control.cancel.schema.json';
import controlPause from '../../../resources/aep/schemas/types/control.pause.schema.json';
import controlRejected from '../../../resources/aep/schemas/types/control.rejected.schema.json';
import controlResume from '../../../resources/aep/schemas/types/control.resume.schema.json';
import delegationSubagentStarted from '../../../resources/aep/schemas/types/delegation.subagent.started.schema.json';
import delegationSubagentStopped from '../../../resources/aep/schemas/types/delegation.subagent.stopped.schema.json';
import errorRaised from '../../../resources/aep/schemas/types/error.raised.schema.json';
import progressArtifactProduced from '../../../resources/aep/schemas/types/progress.artifact.produced.schema.json';
import progressStatus from '../../../resources/aep/schemas/types/progress.status.schema.json';
import progressTaskCompleted from '../../../resources/aep/schemas/types/progress.task.completed.schema.json';
import progressTaskPlanned from '../../../resources/aep/schemas/types/progress.task.planned.schema.json';
import resourceCitationRecorded from '../../../resources/aep/schemas/types/resource.citation.recorded.schema.json';
import resourceRetrievalRequested from '../../../resources/aep/schemas/types/resource.retrieval.requested.schema.json';
import resourceRetrievalReranked from '../../../resources/aep/schemas/types/resource.retrieval.reranked.schema.json';
import resourceRetrievalReturned from '../../../resources/aep/schemas/types/resource.retrieval.returned.schema.json';
import runCancelled from '../../../resources/aep/schemas/types/run.cancelled.schema.json';
import runFailed from '../../../resources/aep/schemas/types/run.failed.schema.json';
import runFinished from '../../../resources/aep/schemas/types/run.finished.schema.json';
import runStarted from '../../../resources/aep/schemas/types/run.started.schema.json';
import runStepFinished from '../../../resources/aep/schemas/types/run.step.finished.schema.json';
import runStepStarted from '../../../resources/aep/schemas/types/run.step.started.schema.json';
import sessionCompacted from '../../../resources/aep/schemas/types/session.compacted.schema.json';
import sessionEnded from '../../../resources/aep/schemas/types/session.ended.schema.json';
import sessionStarted from '../../../resources/aep/schemas/types/session.started.schema.json';
import stateDelta from '../../../resources/aep/schemas/types/state.delta.schema.json';
import stateSnapshot from '../../../resources/aep/schemas/types/state.snapshot.schema.json';
import toolCompleted from '../../../resources/aep/schemas/types/tool.completed.schema.json';
import toolDenied from '../../../resources/aep/schemas/types/tool.denied.schema.json';
import toolFailed from '../../../resources/aep/schemas/types/tool.failed.schema.json';
import toolRequested from '../../../resources/aep/schemas/types/tool.requested.schema.json';

/** Payload schema per registered type (AEP-0002 §5), keyed by type name. */
export const TYPE_SCHEMAS: Readonly<Record<string, object>> = {
  'agent.health': agentHealth,
  'agent.heartbeat': agentHeartbeat,
  'agent.idle': agentIdle,
  'agent.presence': agentPresence,
  'assessment.evaluation.recorded': assessmentEvaluationRecorded,
  'assessment.feedback.received': assessmentFeedbackReceived,
  'assessment.guardrail.recorded': assessmentGuardrailRecorded,
  'attention.answered': attentionAnswered,
  'attention.requested': attentionRequested,
  'attention.resolved': attentionResolved,
  'attention.routed': attentionRouted,
  'attention.timeout': attentionTimeout,
  'control.accepted': controlAccepted,
  'control.attention.respond': controlAttentionRespond,
  'control.cancel': controlCancel,
  'control.pause': controlPause,
  'control.rejected': controlRejected,
  'control.resume': controlResume,
  'delegation.subagent.started': delegationSubagentStarted,
  'delegation.subagent.stopped': delegationSubagentStopped,
  'error.raised': errorRaised,
  'progress.artifact.produced': progressArtifactProduced,
  'progress.status': progressStatus,
  'progress.task.completed': progressTaskCompleted,
  'progress.task.planned': progressTaskPlanned,
  'resource.citation.recorded': resourceCitationRecorded,
  'resource.retrieval.requested': resourceRetrievalRequested,
  'resource.retrieval.reranked': resourceRetrievalReranked,
  'resource.retrieval.returned': resourceRetrievalReturned,
  'run.cancelled': runCancelled,
  'run.failed': runFailed,
  'run.finished': runFinished,
  'run.started': runStarted,
  'run.step.finished': runStepFinished,
  'run.step.started': runStepStarted,
  'session.compacted': sessionCompacted,
  'session.ended': sessionEnded,
  'session.started': sessionStarted,
  'state.delta': stateDelta,
  'state.snapshot': stateSnapshot,
  'tool.completed': toolCompleted,
  'tool.denied': toolDenied,
  'tool.failed': toolFailed,
  'tool.requested': toolRequested,
};
