import { describe, expect, it } from 'vitest';
import {
  addProperty,
  appendToArray,
  formattingOf,
  parseJsonConfig,
  removeAt,
} from '../../../main/core/installer/json-document';

describe('json-document', () => {
  it('appends on its own line in the style of the last element, and removeAt undoes it exactly', () => {
    const text = '{\n    "a": [\n        1,\n        2\n    ]\n}\n';
    const added = appendToArray(text, ['a'], { x: 1 });
    expect(added).toBe(
      '{\n    "a": [\n        1,\n        2,\n        {\n            "x": 1\n        }\n    ]\n}\n',
    );
    expect(removeAt(added, ['a', 2])).toBe(text);
  });

  it('appends inline to a one-line array without reformatting it', () => {
    const text = '{ "a": [ 1, 2 ] }';
    const added = appendToArray(text, ['a'], { x: 1 });
    expect(added).toBe('{ "a": [ 1, 2, {"x":1} ] }');
    expect(removeAt(added, ['a', 2])).toBe(text);
  });

  it('adds a property after the last one and removes it again byte for byte, comments kept', () => {
    const text = '{\r\n\t// keep\r\n\t"a": 1 /* here */\r\n}';
    const added = addProperty(text, [], 'b', [1]);
    expect(added).toBe('{\r\n\t// keep\r\n\t"a": 1,\r\n\t"b": [\r\n\t\t1\r\n\t] /* here */\r\n}');
    expect(removeAt(added, ['b'])).toBe(text);
  });

  it('removes a first element together with its separator', () => {
    expect(removeAt('[1, 2, 3]', [0])).toBe('[2, 3]');
    expect(removeAt('{"only": 1}', ['only'])).toBe('{}');
  });

  it('detects tabs, indent width and CRLF', () => {
    expect(formattingOf('{\r\n\t"a": 1\r\n}')).toEqual({
      insertSpaces: false,
      tabSize: 1,
      eol: '\r\n',
    });
    expect(formattingOf('{\n    "a": 1\n}')).toEqual({ insertSpaces: true, tabSize: 4, eol: '\n' });
  });

  it('names the line and column of a syntax error', () => {
    const parsed = parseJsonConfig('/x/settings.json', '{\n  "a": 1,\n  "b" 2\n}');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok)
      expect(parsed.error.message).toMatch(
        /\/x\/settings\.json is not valid JSON \(ColonExpected at line 3, column 7\)/,
      );
  });
});
