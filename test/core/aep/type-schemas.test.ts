import { describe, expect, it } from 'vitest';
import { TYPE_SCHEMAS } from '../../../main/core/aep/type-schemas';
import registry from '../../../resources/aep/schemas/registry/types.json';

describe('TYPE_SCHEMAS', () => {
  it('holds exactly the payload schema of every registered type that has one', () => {
    const expected = registry.types
      .filter((t) => t.schema !== null)
      .map((t) => t.type)
      .sort();
    expect(Object.keys(TYPE_SCHEMAS).sort()).toEqual(expected);
    for (const t of registry.types) {
      if (t.schema !== null)
        expect((TYPE_SCHEMAS[t.type] as { $id: string }).$id).toBe(
          `aep://schemas/0.1/types/${t.schema}`,
        );
    }
  });
});
