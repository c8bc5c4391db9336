// The form of a server's request for input: the values as the inputs hold
// them, the checks of each field (the same rules Go applies before the
// answer goes: internal/elicit), and the content sent on Accept.
import type { ElicitField, ElicitForm } from '../../backend';
import { controls } from '../../links';

/** What an input holds: text (also numbers, as typed), a checkbox, a choice, or several. */
export type FieldValue = string | boolean | string[];
export type FormValues = Record<string, FieldValue>;

/** The values a form starts with: each field's default, else empty. */
export function initialValues(form: ElicitForm): FormValues {
  const v: FormValues = {};
  for (const f of form.fields) {
    const d = f.default;
    switch (f.type) {
      case 'boolean':
        v[f.name] = d === true;
        break;
      case 'multiselect':
        v[f.name] = Array.isArray(d) ? d.filter((x): x is string => typeof x === 'string') : [];
        break;
      default:
        v[f.name] = d === undefined || d === null ? '' : String(d);
    }
  }
  return v;
}

const emailRe = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;
const dateRe = /^\d{4}-\d{2}-\d{2}$/;
const dateTimeRe = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** What is wrong with the value of field f, or '' (Go checks again). */
export function checkField(f: ElicitField, value: FieldValue | undefined): string {
  switch (f.type) {
    case 'boolean':
      return '';
    case 'multiselect': {
      const list = Array.isArray(value) ? value : [];
      if (f.required && list.length === 0) return 'required';
      if (list.length === 0) return '';
      if (f.minItems != null && list.length < f.minItems) return `pick at least ${f.minItems}`;
      if (f.maxItems != null && list.length > f.maxItems) return `pick at most ${f.maxItems}`;
      return '';
    }
  }
  const s = typeof value === 'string' ? value : '';
  if (s === '') return f.required ? 'required' : '';
  switch (f.type) {
    case 'select':
      return (f.options ?? []).some((o) => o.value === s) ? '' : 'must be one of the choices';
    case 'number':
    case 'integer': {
      const x = Number(s.trim());
      if (s.trim() === '' || !Number.isFinite(x)) return 'must be a number';
      if (f.type === 'integer' && !Number.isInteger(x)) return 'must be a whole number';
      if (f.minimum != null && x < f.minimum) return `at least ${f.minimum}`;
      if (f.maximum != null && x > f.maximum) return `at most ${f.maximum}`;
      return '';
    }
  }
  const n = [...s].length;
  if (f.minLength != null && n < f.minLength) return `at least ${f.minLength} characters`;
  if (f.maxLength != null && n > f.maxLength) return `at most ${f.maxLength} characters`;
  switch (f.format) {
    case 'email':
      return emailRe.test(s) ? '' : 'must be an email address, like name@example.com';
    case 'uri':
      return /^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/.test(s) && parses(s) ? '' : 'must be a full address, like https://example.com';
    case 'date':
      return dateRe.test(s) && !Number.isNaN(Date.parse(s)) ? '' : 'must be a date, like 2025-12-31';
    case 'date-time':
      return dateTimeRe.test(s) && !Number.isNaN(Date.parse(s)) ? '' : 'must be a date and time, like 2025-12-31T23:59:00Z';
  }
  return '';
}

function parses(s: string): boolean {
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
}

/** Every field's problem, by name (empty when the form may be sent). */
export function checkForm(form: ElicitForm, values: FormValues): Record<string, string> {
  const errs: Record<string, string> = {};
  for (const f of form.fields) {
    const e = checkField(f, values[f.name]);
    if (e) errs[f.name] = e;
  }
  return errs;
}

/** The content to send: typed values, empty optional fields left out. */
export function toContent(form: ElicitForm, values: FormValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of form.fields) {
    const v = values[f.name];
    switch (f.type) {
      case 'boolean':
        out[f.name] = v === true;
        break;
      case 'multiselect':
        if (Array.isArray(v) && (v.length > 0 || f.required)) out[f.name] = [...v];
        break;
      case 'number':
      case 'integer':
        if (typeof v === 'string' && v.trim() !== '') out[f.name] = Number(v.trim());
        break;
      default:
        if (typeof v === 'string' && v !== '') out[f.name] = v;
    }
  }
  return out;
}

/**
 * Reads the JSON editor's text (a schema that is not a form): an object
 * of text, numbers, booleans and lists of text, or an error to show.
 */
export function parseJSONAnswer(text: string): { content?: Record<string, unknown>; error?: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { error: `not valid JSON: ${(e as Error).message}` };
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { error: 'the answer must be a JSON object, like {"name": "Ada"}' };
  for (const [k, x] of Object.entries(v)) {
    const ok = ['string', 'number', 'boolean'].includes(typeof x) || (Array.isArray(x) && x.every((e) => typeof e === 'string'));
    if (!ok) return { error: `${k}: must be text, a number, true or false, or a list of text` };
  }
  return { content: v as Record<string, unknown> };
}

/** The input type of a text field of this format. */
export function inputType(f: ElicitField): string {
  switch (f.format) {
    case 'email':
      return 'email';
    case 'uri':
      return 'url';
    case 'date':
      return 'date';
  }
  return 'text';
}

/**
 * A URL split for display: the host stands out from the rest. It is shown
 * as the browser reads it (a look-alike host as punycode, direction
 * overrides percent-encoded), not as the server wrote it.
 */
export function splitURL(url: string): { before: string; host: string; after: string } {
  try {
    const u = new URL(url);
    const before = `${u.protocol}//`;
    if (u.host && u.href.startsWith(before + u.host)) return { before, host: u.host, after: u.href.slice(before.length + u.host.length) };
  } catch {
    // shown whole
  }
  return { before: '', host: '', after: url.replace(controls, encodeURIComponent) };
}

/** A host for display, as splitURL shows it (a server's host comes as it wrote it). */
export function shownHost(host: string): string {
  return splitURL(`https://${host}/`).host || host.replace(controls, encodeURIComponent);
}

/** "9:41" left until iso, or "expired". */
export function timeLeft(iso: string, now: number): string {
  const ms = Date.parse(iso) - now;
  if (!(ms > 0)) return 'expired';
  const s = Math.ceil(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
