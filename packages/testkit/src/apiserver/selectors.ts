// Label and field selectors, parsed from their query-string form and matched as kube-apiserver does
// (k8s.io/apimachinery/pkg/labels and pkg/fields).
import { badRequest } from './errors.js';
import { isObject, type JsonObject } from './json.js';

export type LabelRequirement =
  { key: string; op: 'in' | 'notin'; values: string[] } | { key: string; op: 'exists' | '!exists' };

export type FieldRequirement = { path: string; op: '=' | '!='; value: string };

const labelKey =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const labelValue = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** Splits on commas that are not inside parentheses. */
function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of selector) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      terms.push(current);
      current = '';
    } else current += ch;
  }
  terms.push(current);
  return terms.map((t) => t.trim()).filter((t) => t !== '');
}

function checkKey(key: string, selector: string): string {
  if (!labelKey.test(key) || key.length > 317) {
    throw badRequest(`unable to parse requirement: invalid label key "${key}" in selector "${selector}"`);
  }
  return key;
}

function checkValue(value: string, selector: string): string {
  if (!labelValue.test(value) || value.length > 63) {
    throw badRequest(`unable to parse requirement: invalid label value "${value}" in selector "${selector}"`);
  }
  return value;
}

export function parseLabelSelector(selector: string | undefined): LabelRequirement[] {
  if (selector === undefined || selector.trim() === '') return [];
  return splitTerms(selector).map((term): LabelRequirement => {
    const setMatch = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
    if (setMatch) {
      const values = setMatch[3]!
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '');
      return {
        key: checkKey(setMatch[1]!, selector),
        op: setMatch[2] as 'in' | 'notin',
        values: values.map((v) => checkValue(v, selector)),
      };
    }
    const eqMatch = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
    if (eqMatch) {
      const key = checkKey(eqMatch[1]!, selector);
      const value = checkValue(eqMatch[3]!, selector);
      return { key, op: eqMatch[2] === '!=' ? 'notin' : 'in', values: [value] };
    }
    if (term.startsWith('!')) return { key: checkKey(term.slice(1).trim(), selector), op: '!exists' };
    return { key: checkKey(term, selector), op: 'exists' };
  });
}

export function matchLabels(requirements: LabelRequirement[], labels: JsonObject | undefined): boolean {
  return requirements.every((req) => {
    const raw = labels?.[req.key];
    const value = typeof raw === 'string' ? raw : undefined;
    switch (req.op) {
      case 'exists':
        return value !== undefined;
      case '!exists':
        return value === undefined;
      case 'in':
        return value !== undefined && req.values.includes(value);
      case 'notin':
        return value === undefined || !req.values.includes(value);
    }
  });
}

export function parseFieldSelector(
  selector: string | undefined,
  supported: readonly string[],
): FieldRequirement[] {
  if (selector === undefined || selector.trim() === '') return [];
  return splitTerms(selector).map((term) => {
    const m = /^([^=!]+)(==|=|!=)(.*)$/.exec(term);
    if (!m) throw badRequest(`invalid field selector: '${term}'`);
    const path = m[1]!.trim();
    if (!supported.includes(path)) throw badRequest(`field label not supported: ${path}`);
    return { path, op: m[2] === '!=' ? '!=' : '=', value: m[3]!.trim() };
  });
}

function fieldValue(obj: JsonObject, path: string): string {
  let current: unknown = obj;
  for (const part of path.split('.')) current = isObject(current) ? current[part] : undefined;
  if (current === undefined || current === null) return '';
  return typeof current === 'string' ? current : JSON.stringify(current);
}

export function matchFields(requirements: FieldRequirement[], obj: JsonObject): boolean {
  return requirements.every((req) => (fieldValue(obj, req.path) === req.value) === (req.op === '='));
}
