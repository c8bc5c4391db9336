// The install dialog's model, apart from the component: what the user typed
// (an npm package with its version, or a .tgz/.mcpb file), checked and made
// into the request Go takes, and the words for each step of an install.
import type { InstallProgress, InstallRequest, NodeInfo, ServerInstall } from '../../backend';
import type { KV } from './form';

export type InstallSource = 'npm' | 'file';
/** A package file: an npm tarball or an MCP Bundle (Claude Desktop's .mcpb, formerly .dxt). */
export type FileKind = 'tgz' | 'mcpb';

export interface InstallForm {
  source: InstallSource;
  /** An npm package name, optionally with @version. */
  pkg: string;
  /** '' = the latest (or the one pkg names). */
  version: string;
  /** The full path of a .tgz or .mcpb file. */
  file: string;
  /** '' = derived from the package name. */
  id: string;
  /** Which of the package's commands to run, when it has several. */
  bin: string;
  pin: boolean;
  /** A bundle's settings (its user_config), by key. */
  values: KV[];
}

/** What the dialog may be opened with (a registry browser fills in a package). */
export type InstallPrefill = Partial<Pick<InstallForm, 'pkg' | 'version' | 'file' | 'id' | 'bin'>>;

export function emptyInstallForm(prefill: InstallPrefill = {}): InstallForm {
  return {
    source: prefill.file && !prefill.pkg ? 'file' : 'npm',
    pkg: prefill.pkg ?? '',
    version: prefill.version ?? '',
    file: prefill.file ?? '',
    id: prefill.id ?? '',
    bin: prefill.bin ?? '',
    pin: false,
    values: [],
  };
}

export type InstallField = 'pkg' | 'version' | 'file' | 'id' | 'bin' | 'values';

/** Splits "pkg@1.2.3" or "@scope/pkg@1.2.3" into name and version, as Go's installer.SplitSpec. */
export function splitSpec(spec: string): { name: string; version: string } {
  const s = spec.trim();
  const at = s.lastIndexOf('@');
  if (at <= 0) return { name: s, version: '' };
  return { name: s.slice(0, at), version: s.slice(at + 1) };
}

/** The kind of a package file by its name; null when it is neither. */
export function fileKind(path: string): FileKind | null {
  const l = path.trim().toLowerCase();
  if (l.endsWith('.tgz') || l.endsWith('.tar.gz')) return 'tgz';
  if (l.endsWith('.mcpb') || l.endsWith('.dxt')) return 'mcpb';
  return null;
}

/** Whether text typed as a package is rather a file (a path, or a package file's name). */
export function looksLikeFile(text: string): boolean {
  const t = text.trim();
  return /^(\/|~[\\/]|\.{1,2}[\\/]|[A-Za-z]:[\\/]|\\\\)/.test(t) || fileKind(t) !== null;
}

function isAbsolute(path: string): boolean {
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\\\');
}

// As npm's validate-npm-package-name (for new packages) and Go's
// installer.versionSpec and serverconf's ID pattern.
const npmName = /^(?:@[a-z0-9-*~][a-z0-9-*._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;
const versionSpec = /^[A-Za-z0-9.+~^<>=|*_-]{1,64}$/;
const idPattern = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const valueKey = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
/** The most settings a bundle takes here; more is a mistake. */
export const maxValues = 64;

/**
 * Checks the form and builds the request; errors are by field, and the
 * request is null while there are any. fetchNode is the user's consent to
 * download Node.
 */
export function toRequest(f: InstallForm, fetchNode = false): { request: InstallRequest | null; errors: Partial<Record<InstallField, string>> } {
  const errors: Partial<Record<InstallField, string>> = {};
  let pkg = '';
  let version = '';
  const values: Record<string, string> = {};
  if (f.source === 'npm') {
    const spec = splitSpec(f.pkg);
    const typed = f.version.trim();
    pkg = spec.name;
    version = typed || spec.version;
    if (!pkg) errors.pkg = 'Name the npm package, e.g. @modelcontextprotocol/server-memory.';
    else if (!npmName.test(pkg)) errors.pkg = `${pkg} is not an npm package name (lowercase, like name or @scope/name).`;
    if (typed && spec.version && typed !== spec.version) errors.version = `The package says @${spec.version}; leave one of the two empty.`;
    else if (version && !versionSpec.test(version)) errors.version = 'A version is like 1.2.3, or a tag like latest.';
  } else {
    pkg = f.file.trim();
    if (!pkg) errors.file = 'Choose a .tgz or .mcpb file.';
    else if (!fileKind(pkg)) errors.file = 'Choose an npm package tarball (.tgz, made by npm pack) or an MCP Bundle (.mcpb).';
    else if (!isAbsolute(pkg)) errors.file = 'Give the full path of the file (Browse… fills it in).';
    if (fileKind(pkg) === 'mcpb') {
      const rows = f.values.filter((r) => r.name.trim() || r.value);
      if (rows.length > maxValues) errors.values = `At most ${maxValues} settings.`;
      for (const r of rows) {
        const k = r.name.trim();
        if (!valueKey.test(k)) errors.values ??= `${k ? `"${k}"` : 'A setting without a name'}: a setting's key is letters, digits and _ (as the bundle's manifest names it).`;
        else if (k in values) errors.values ??= `${k} is there twice.`;
        else values[k] = r.value;
      }
    }
  }
  const id = f.id.trim();
  if (id && !idPattern.test(id)) errors.id = 'Lowercase letters, digits, - and _, at most 32, starting with a letter or digit.';
  const bin = f.bin.trim();
  if (bin && /[\s/\\]/.test(bin)) errors.bin = 'The name of one of the package\'s commands (its package.json "bin"), without spaces.';
  if (Object.keys(errors).length) return { request: null, errors };
  return { request: { id: id, package: pkg, version: version, bin: bin, values: values, fetchNode }, errors };
}

/** The steps of an install as the dialog shows them (a bundle is unpacked, not resolved). */
export function installSteps(kind: FileKind | 'npm'): string[] {
  return kind === 'mcpb' ? ['unpacking', 'checking', 'done'] : ['resolving', 'downloading', 'checking', 'done'];
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The line the window shows for a step of an install, an update or the Node download. */
export function progressText(p: InstallProgress): string {
  const d = p.detail ?? '';
  if (p.id === 'node') {
    if (p.step === 'done') return `Downloaded ${d || 'Node.js'}`;
    return `Downloading ${p.step === 'npm' ? 'npm' : 'Node.js'}${d ? `: ${d}` : '…'}`;
  }
  switch (p.step) {
    case 'resolving':
      return `Resolving ${d || 'the package'}…`;
    case 'downloading':
      return `Downloading: ${plural(p.fetched ?? 0, 'file')} fetched${d ? ` (${d})` : ''}`;
    case 'checking':
      return d ? `Checking: ${d}` : 'Checking the package…';
    case 'unpacking':
      return `Unpacking ${d || 'the bundle'}…`;
    case 'done':
      return `Installed ${d}`.trim();
    default:
      return `${p.step}${d ? `: ${d}` : ''}`;
  }
}

/** The badge of an installed server: "npm 2026.8.31", "mcpb 1.0.0". */
export function installBadge(i: ServerInstall): string {
  return `${i.kind} ${i.version}`;
}

/** How an installed server is updated: from the registry, or only from a newer file. */
export function updatesFromFile(i: ServerInstall): boolean {
  return i.kind !== 'npm' || !!i.file;
}

/** "Node 22.11.0 at /usr/bin/node (system)". */
export function nodeText(n: NodeInfo): string {
  const src = n.source === 'switchboard' ? 'downloaded by Switchboard' : n.source;
  return `Node ${n.version} at ${n.path} (${src})${n.hasNpm ? '' : ', without npm: it runs installed servers but cannot install more'}`;
}
