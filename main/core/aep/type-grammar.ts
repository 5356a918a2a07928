/** The AEP type grammar (AEP-0001 §6, AEP-0002 §3), with a diagnosis that names the broken rule. */
import { CATEGORIES } from './core-attributes';

const TOKEN = /^[a-z0-9_]+$/;
const VENDOR = /^[a-z0-9_-]+$/;

/** Explains why `type` is not a legal AEP type, or returns undefined when it is legal. */
export function typeGrammarError(type: string): string | undefined {
  const parts = type.split('.');
  if (parts[0] === 'x') {
    if (parts.length < 4) {
      return `AEP-0001 §6: vendor type "${type}" must have the form x.{vendor}.{category}.{rest}`;
    }
    if (!VENDOR.test(parts[1])) {
      return `AEP-0001 §6: vendor token "${parts[1]}" in "${type}" must be lowercase [a-z0-9_-]`;
    }
    const bad = parts.slice(2).find((p) => !TOKEN.test(p));
    return bad === undefined
      ? undefined
      : `AEP-0001 §6: type "${type}" has an illegal token "${bad}" (lowercase [a-z0-9_] only)`;
  }
  const bad = parts.find((p) => !TOKEN.test(p));
  if (bad !== undefined) {
    return `AEP-0001 §6: type "${type}" has an illegal token "${bad}" (lowercase dot-separated [a-z0-9_] tokens only)`;
  }
  if (parts.length < 2) return `AEP-0001 §6: type "${type}" must have the form {category}.{rest}`;
  if (!CATEGORIES.has(parts[0])) {
    return `AEP-0002 §3: "${parts[0]}" in "${type}" is not a registered category (closed set for 0.1)`;
  }
  return undefined;
}

/** True for a legal AEP type (core form or vendor extension). */
export const isLegalType = (type: string): boolean => typeGrammarError(type) === undefined;
