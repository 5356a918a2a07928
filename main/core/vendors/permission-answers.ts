/**
 * Applying an operator's answer to a held permission moment of the Claude Code hook family
 * (AEP-0008 text rule, AEP-0006 forms): the vendor decision reply plus the gated record of what was applied.
 */
import { err, ok, type Result } from '../../../common/result';
import { gateFor } from './capture-gate';
import { checkFormAnswer } from '../aep';
import {
  askUserQuestionFields,
  elicitationFields,
  gateAnsweredValues,
  type FormField,
} from './forms';
import { compact, isObject, obj, str, type JsonObject } from './payload-fields';
import type {
  AttentionAnswer,
  HookCall,
  MappingContext,
  PermissionDecision,
  ReplyErrorCode,
} from './types';

/** The deny message the vendor shows when the operator denies without saying why. */
export const OPERATOR_DENY_MESSAGE = 'Denied by the operator in AEP Companion.';

/** The decision object a vendor reads from a `PermissionRequest` reply. */
export interface PermissionVerdict {
  readonly behavior: 'allow' | 'deny';
  readonly message?: string;
  readonly updatedInput?: JsonObject;
}

/** `{ hookSpecificOutput: { hookEventName, decision } }`: the permission reply of the Claude Code family. */
export const permissionRequestReply = (verdict: PermissionVerdict): JsonObject => ({
  hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: compact({ ...verdict }) },
});

const answered = (answer: Record<string, unknown>): JsonObject => ({ answer, via: 'control' });

/**
 * The `PermissionRequest` reply of the Claude Code hook family (Claude Code, Codex, Qwen Code)
 * for an allow / deny / free-text answer. `vendorName` names the vendor in the refusal when the
 * held moment is not a permission request.
 */
export const permissionRequestDecision = (
  vendorName: string,
  call: HookCall,
  answer: AttentionAnswer,
  context: MappingContext,
): Result<PermissionDecision, ReplyErrorCode> => {
  if (call.moment !== 'PermissionRequest') {
    return err(
      'not-a-permission-moment',
      `${vendorName} ${call.moment} is not a permission moment`,
    );
  }
  const decided = decidePermission(answer, context);
  if (!decided.ok) return decided;
  return ok({
    reply: permissionRequestReply(decided.value.verdict),
    answered: decided.value.answered,
  });
};

/**
 * allow / deny / free text against the two-option permission card. Text naming an option is that
 * option; any other text denies with the text as guidance, never allows (AEP-0008).
 */
export const decidePermission = (
  answer: AttentionAnswer,
  context: MappingContext,
): Result<{ verdict: PermissionVerdict; answered: JsonObject }, ReplyErrorCode> => {
  const gate = gateFor('attention.answered', context);
  const word = (answer.option ?? answer.text ?? '').trim().toLowerCase();
  if (answer.values !== undefined && answer.option === undefined && answer.text === undefined) {
    return err('invalid-answer', 'a permission request takes an option or text, not form values');
  }
  if (word === 'allow')
    return ok({ verdict: { behavior: 'allow' }, answered: answered({ option: 'allow' }) });
  if (word === 'deny') {
    return ok({
      verdict: { behavior: 'deny', message: OPERATOR_DENY_MESSAGE },
      answered: answered({ option: 'deny' }),
    });
  }
  if (answer.option !== undefined) {
    return err(
      'invalid-answer',
      `unknown option ${JSON.stringify(answer.option)}: the choices are allow and deny`,
    );
  }
  const text = answer.text?.trim() ?? '';
  if (text === '') return err('invalid-answer', 'the answer has neither an option nor text');
  return ok({
    verdict: { behavior: 'deny', message: text },
    answered: answered(compact({ option: 'deny', text: gate.text(text) })),
  });
};

/** The answer as form values: `values` as given, or a single-question `option`/`text` (AEP-0006 degradation). */
const valuesOf = (
  fields: readonly FormField[],
  answer: AttentionAnswer,
): Readonly<Record<string, unknown>> | undefined => {
  if (answer.values !== undefined) return answer.values;
  const single = answer.option ?? answer.text;
  if (fields.length !== 1 || single === undefined) return undefined;
  const field = fields[0];
  const trimmed = single.trim();
  const byLabel =
    field.choices?.filter(
      (choice) => choice.label.trim().toLowerCase() === trimmed.toLowerCase(),
    ) ?? [];
  const byId = field.choices?.find((choice) => choice.id === trimmed);
  return { [field.id]: byId?.id ?? (byLabel.length === 1 ? byLabel[0].id : trimmed) };
};

/** AskUserQuestion answered: `allow` with `updatedInput: { questions, answers }` keyed by question text. */
export const decideAskUserQuestion = (
  call: HookCall,
  answer: AttentionAnswer,
  context: MappingContext,
): Result<PermissionDecision, ReplyErrorCode> => {
  const input = call.tool?.input;
  const fields = askUserQuestionFields(input);
  if (fields === undefined || !isObject(input))
    return err('invalid-answer', 'the AskUserQuestion call carries no questions');
  const values = valuesOf(fields, answer);
  if (values === undefined)
    return err('invalid-answer', 'a question form takes values (one per question)');
  const checked = checkFormAnswer(fields, values);
  if (!checked.ok) return err('invalid-answer', checked.error.message);
  const questions = (input.questions as JsonObject[]) ?? [];
  const answers: Record<string, string> = {};
  fields.forEach((field, index) => {
    const value = values[field.id];
    if (value === undefined) return;
    const labelOf = (id: string): string =>
      field.choices?.find((choice) => choice.id === id)?.label ?? id;
    const text = Array.isArray(value)
      ? value.map((id) => labelOf(String(id))).join(', ')
      : labelOf(String(value));
    answers[str(questions[index], 'question') ?? field.id] = text;
  });
  return ok({
    reply: permissionRequestReply({ behavior: 'allow', updatedInput: { ...input, answers } }),
    answered: answered({
      values: gateAnsweredValues(fields, values, gateFor('attention.answered', context)),
    }),
  });
};

/** An MCP elicitation answered: `accept` with typed content, or the `decline` / `cancel` options. */
export const decideElicitation = (
  call: HookCall,
  answer: AttentionAnswer,
  context: MappingContext,
): Result<PermissionDecision, ReplyErrorCode> => {
  const reply = (action: string, content?: Readonly<Record<string, unknown>>): JsonObject => ({
    hookSpecificOutput: compact({ hookEventName: 'Elicitation', action, content }),
  });
  const option = answer.option?.trim().toLowerCase();
  if (option === 'decline' || option === 'cancel') {
    return ok({ reply: reply(option), answered: answered({ option }) });
  }
  const schema = obj(call.payload, 'requested_schema') ?? obj(call.payload, 'requestedSchema');
  const fields = elicitationFields(schema);
  const values = valuesOf(fields, answer);
  if (values === undefined)
    return err(
      'invalid-answer',
      'an elicitation takes form values, or the option decline or cancel',
    );
  const checked = checkFormAnswer(fields, values);
  if (!checked.ok) return err('invalid-answer', checked.error.message);
  return ok({
    reply: reply('accept', values),
    answered: answered({
      values: gateAnsweredValues(fields, values, gateFor('attention.answered', context)),
    }),
  });
};
