/** Any other data, pretty-printed and collapsible (native <details>, keyboard-operable). */
import { Expandable } from './Expandable';

function summaryOf(value: unknown): string {
  if (Array.isArray(value)) return `[ ${value.length} item${value.length === 1 ? '' : 's'} ]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value);
    return `{ ${keys.slice(0, 4).join(', ')}${keys.length > 4 ? ', …' : ''} }`;
  }
  return '';
}

function Leaf({ value }: { value: unknown }) {
  if (typeof value === 'string') {
    return value.includes('\n') || value.length > 200 ? (
      <Expandable text={value} maxLines={12} render={(s) => <pre className="json-string" tabIndex={0}>{s}</pre>} />
    ) : (
      <span className="json-string">{JSON.stringify(value)}</span>
    );
  }
  return <span className={`json-${value === null ? 'null' : typeof value}`}>{JSON.stringify(value)}</span>;
}

function Node({ name, value, depth }: { name: string | null; value: unknown; depth: number }) {
  if (value === null || typeof value !== 'object') {
    return (
      <div className="json-row">
        {name !== null ? <span className="json-key">{name}: </span> : null}
        <Leaf value={value} />
      </div>
    );
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value as Record<string, unknown>);
  return (
    <details className="json-node" open={depth < 2}>
      <summary>
        {name !== null ? <span className="json-key">{name}: </span> : null}
        <span className="json-summary">{summaryOf(value)}</span>
      </summary>
      <div className="json-children">
        {entries.map(([k, v]) => (
          <Node key={k} name={k} value={v} depth={depth + 1} />
        ))}
      </div>
    </details>
  );
}

/** The tree. */
export function JsonTree({ label, value }: { label: string; value: unknown }) {
  return (
    <figure className="content-block" data-testid="content-json">
      <figcaption className="content-label">{label}</figcaption>
      <div className="json-tree">
        <Node name={null} value={value} depth={0} />
      </div>
    </figure>
  );
}
