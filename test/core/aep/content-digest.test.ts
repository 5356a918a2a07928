import { describe, expect, it } from 'vitest';
import { canonicalJson, contentDigest } from '../../../main/core/aep';

describe('contentDigest', () => {
  it('is SHA-256 over canonical JSON, first 16 bytes as hex', () => {
    // sha256('{"a":[1,"x"],"b":1}') computed independently.
    expect(contentDigest({ b: 1, a: [1, 'x'] })).toBe('a88dede55f330dbae7d6c99cb78c4321');
    expect(contentDigest('h\u00e9llo')).toBe('a537896e9aa53fa93651715b791fabe8');
  });

  it('does not depend on key order', () => {
    expect(contentDigest({ x: { b: 2, a: 1 }, y: [3] })).toBe(
      contentDigest({ y: [3], x: { a: 1, b: 2 } }),
    );
  });

  it('distinguishes a string from its JSON text', () => {
    expect(contentDigest('1')).not.toBe(contentDigest(1));
  });
});

describe('canonicalJson', () => {
  it('sorts keys, drops undefined members and writes no whitespace', () => {
    expect(canonicalJson({ b: [true, null], a: 'x', u: undefined, n: 1.5 })).toBe(
      '{"a":"x","b":[true,null],"n":1.5}',
    );
  });
});
