// The registry browser's model, apart from the component: what a search
// result says at a glance (its kinds, deprecated or not), the values the
// user types for a plan's fields, checked as Go checks them, and made into
// the map InstallFromRegistry takes; and which field an error of Go's is
// about, so it shows under that field.
import type { RegistryField, RegistryItem, RegistryPlan } from '../../backend';

/** The ways an entry can be added, each once, in the order of its options ("npm", "remote"). */
export function itemKinds(item: RegistryItem): string[] {
  const kinds: string[] = [];
  for (const o of item.options ?? []) {
    if (o.kind && !o.unsupported && !kinds.includes(o.kind)) kinds.push(o.kind);
  }
  return kinds;
}

/** The name to show: the title when there is one. */
export function itemTitle(item: RegistryItem): string {
  return item.entry.server.title?.trim() || item.entry.server.name;
}

/** A key for a result: name and version (a registry lists several versions of one name). */
export function itemKey(item: RegistryItem): string {
  return `${item.entry.server.name}@${item.entry.server.version}`;
}

/** The option to select first: the preferred, else the first usable; -1 when none is. */
export function firstChoice(item: RegistryItem): number {
  if (item.preferred >= 0) return item.preferred;
  return (item.options ?? []).findIndex((o) => !o.unsupported);
}

/** The most bytes of one value (as Go's maxValue). */
export const maxValueBytes = 64 << 10;

/** The lines of a repeated field's value that count (not blank). */
function lines(raw: string): string[] {
  return raw
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.trim() !== '');
}

/** The values a field takes from what was typed ('' and blank lines are nothing; the default then applies). */
function valuesOf(f: RegistryField, raw: string): string[] {
  if (f.repeated) return lines(raw);
  return raw === '' ? [] : [raw];
}

/** Why value v does not fit f, or ''. As Go's mcpregistry.checkValues. */
function problem(f: RegistryField, v: string): string {
  if (new TextEncoder().encode(v).length > maxValueBytes) return `Longer than ${maxValueBytes >> 10} KB.`;
  if (v.includes('\0')) return 'Must not contain a NUL character.';
  if ((f.key.startsWith('header.') || f.key.startsWith('url.')) && /[\r\n]/.test(v)) return 'Must not contain line breaks.';
  if (f.key.startsWith('url.') && /[ \t]/.test(v)) return "Must not contain spaces (it goes into the server's URL).";
  if (f.choices?.length && !f.choices.includes(v)) return `One of ${f.choices.join(', ')}.`;
  if (f.format === 'number' && (v.trim() === '' || !Number.isFinite(Number(v)))) return 'A number.';
  if (f.format === 'boolean' && v !== 'true' && v !== 'false') return 'true or false.';
  return '';
}

/**
 * Checks the typed values against the plan's fields and builds the map
 * InstallFromRegistry takes: only fields with something typed (Go fills in
 * defaults), keyed by field key. Errors are by field key; the map is null
 * while there are any.
 */
export function checkValues(
  fields: RegistryField[],
  typed: Record<string, string>,
): { values: Record<string, string> | null; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const values: Record<string, string> = {};
  for (const f of fields) {
    const raw = typed[f.key] ?? '';
    const vals = valuesOf(f, raw);
    if (vals.length === 0) {
      if (f.required && !f.default) errors[f.key] = 'Required.';
      continue;
    }
    const p = vals.map((v) => problem(f, v)).find((m) => m !== '');
    if (p) {
      errors[f.key] = p;
      continue;
    }
    values[f.key] = f.repeated ? vals.join('\n') : raw;
  }
  return Object.keys(errors).length ? { values: null, errors } : { values, errors };
}

/**
 * The parts of an error of Go's that name a field of the plan ("env.KEY:
 * is required; arg.dir: …"), by field key; the rest stays the dialog's
 * error. Go's validation errors list each field as "key: message".
 */
export function fieldErrors(message: string, fields: RegistryField[]): Record<string, string> {
  const out: Record<string, string> = {};
  const body = message.replace(/^invalid server config:\s*/, '');
  for (const part of body.split('; ')) {
    const f = fields.find((x) => part.startsWith(`${x.key}: `));
    if (f && !out[f.key]) out[f.key] = part.slice(f.key.length + 2);
  }
  return out;
}

/** The form's first values: nothing typed, so each field's default (shown) applies. */
export function emptyValues(plan: RegistryPlan): Record<string, string> {
  return Object.fromEntries((plan.fields ?? []).map((f) => [f.key, '']));
}

/** Keeps what was typed for the fields a new plan (another option) still has. */
export function carryValues(plan: RegistryPlan, before: Record<string, string>): Record<string, string> {
  const out = emptyValues(plan);
  for (const k of Object.keys(out)) if (before[k]) out[k] = before[k];
  return out;
}

const idPattern = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** Why an ID typed is not one, or ''. As serverconf's ID pattern. */
export function idProblem(id: string): string {
  const t = id.trim();
  if (!t) return 'Give the server an ID.';
  return idPattern.test(t) ? '' : 'Lowercase letters, digits, - and _, at most 32, starting with a letter or digit.';
}

/** What the Install button says for a kind: installed servers are installed, the others added. */
export function actionLabel(kind: string | undefined): string {
  return kind === 'npm' || kind === 'mcpb' ? 'Install' : 'Add';
}
