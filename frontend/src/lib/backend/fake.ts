// A fake backend for unit tests (and the dev page without Go): in-memory
// state, canned answers, every call recorded, events sent by hand.
import type { Backend, Unsubscribe } from './index';
import type { EventName, EventPayloads } from './events';
import type * as T from './types';
import { isSelected, toolKey } from '../stores/toolselection';

const iso = (ms: number) => new Date(ms).toISOString();

export const fakePresets: T.Preset[] = [
  { id: 'cerebras', name: 'Cerebras', baseUrl: 'https://api.cerebras.ai/v1', keyEnv: 'CEREBRAS_API_KEY', needsKey: true, local: false },
  { id: 'openai', name: 'OpenAI', baseUrl: 'https://api.openai.com/v1', keyEnv: 'OPENAI_API_KEY', needsKey: true, local: false },
  { id: 'groq', name: 'Groq', baseUrl: 'https://api.groq.com/openai/v1', keyEnv: 'GROQ_API_KEY', needsKey: true, local: false },
  { id: 'openrouter', name: 'OpenRouter', baseUrl: 'https://openrouter.ai/api/v1', keyEnv: 'OPENROUTER_API_KEY', needsKey: true, local: false },
  { id: 'ollama', name: 'Ollama', baseUrl: 'http://localhost:11434/v1', keyEnv: '', needsKey: false, local: true },
  { id: 'lmstudio', name: 'LM Studio', baseUrl: 'http://localhost:1234/v1', keyEnv: '', needsKey: false, local: true },
  { id: 'custom', name: 'Custom (OpenAI-compatible)', baseUrl: '', keyEnv: '', needsKey: false, local: false },
];

type Method = Exclude<keyof Backend, 'on'>;

export class FakeBackend implements Backend {
  info: T.Info = {
    version: 'switchboard test',
    dataDir: '/tmp/switchboard',
    database: '/tmp/switchboard/switchboard.db',
    logDir: '/tmp/switchboard/logs',
    keyring: { backend: 'keyring', persistent: true },
    problems: [],
  };
  readyError: Error | null = null;
  readyCalls = 0;
  windowChanges = 0;

  settings: T.Settings = {
    theme: 'system', toolResultLimit: 32000, maxToolRounds: 10, defaultSystemPrompt: '', defaultProviderId: '', trifectaGuard: true,
    toolSearch: 'auto', toolSearchMaxTools: 64, toolSearchMaxKB: 24, npmRegistry: '', mcpRegistry: '',
  };
  presets: T.Preset[] = structuredClone(fakePresets);
  providers: T.ProviderView[] = [];
  models: Record<string, string[]> = {};
  testResults: Record<string, T.TestResult> = {};
  local: T.LocalServer[] = [];
  conversations: T.ConversationSummary[] = [];
  messages: Record<string, T.Message[]> = {};
  toolCallRecords: Record<string, T.ToolCallRecord[]> = {};
  /** Every conversation's calls, newest first, for listActivity. */
  activityRows: T.ActivityRow[] = [];
  activityExport: T.ActivityExport = { path: '', calls: 0 };
  searchHits: T.SearchHit[] = [];
  servers: T.ServerView[] = [];
  validationErrors: T.FieldError[] = [];
  importReport: T.ImportReport = { format: 'claude', added: [] };
  appLogLines: T.LogLine[] = [];
  serverLogLines: Record<string, T.LogLine[]> = {};
  pending: T.ApprovalRequest[] = [];
  policy: T.Policy = { yolo: false, grants: [] };
  exported = '# exported';
  /** The tasks listTasks answers with (it sorts them newest first). */
  tasks: T.Task[] = [];

  /** Every call but ready/on, in order: [method, args]. */
  calls: [string, unknown[]][] = [];
  /** Makes a method reject with this message. */
  failures: Partial<Record<Method, string>> = {};
  /** Called by send(), e.g. to emit a streamed reply. */
  onSend?: (conversationId: string, text: string) => void;

  private handlers = new Map<string, Set<(p: unknown) => void>>();
  private nextId = 1;

  /** The arguments of every call of a method. */
  callsOf(method: Method): unknown[][] {
    return this.calls.filter(([m]) => m === method).map(([, a]) => a);
  }

  private async rec<T>(method: Method, args: unknown[], value: () => T): Promise<T> {
    this.calls.push([method, args]);
    await Promise.resolve();
    const f = this.failures[method];
    if (f) throw new Error(f);
    return value();
  }

  async ready(): Promise<T.Info> {
    this.readyCalls++;
    if (this.readyError) throw this.readyError;
    return structuredClone(this.info);
  }
  async windowChanged(): Promise<void> {
    this.windowChanges++;
  }
  openURL(url: string) {
    return this.rec('openURL', [url], () => undefined);
  }
  getSettings() {
    return this.rec('getSettings', [], () => structuredClone(this.settings));
  }
  saveSettings(s: T.Settings) {
    return this.rec('saveSettings', [s], () => {
      this.settings = structuredClone(s);
    });
  }

  listPresets() {
    return this.rec('listPresets', [], () => structuredClone(this.presets));
  }
  listProviders() {
    return this.rec('listProviders', [], () => structuredClone(this.providers));
  }
  saveProvider(input: T.ProviderInput) {
    return this.rec('saveProvider', [input], () => {
      const id = input.id || `${input.preset}-${this.nextId++}`;
      const old = this.providers.find((p) => p.id === id);
      const view: T.ProviderView = {
        id,
        name: input.name,
        preset: input.preset,
        baseUrl: input.baseUrl,
        defaultModel: input.defaultModel,
        hasKey: input.apiKey !== '' || (old?.hasKey ?? false),
        keyFromEnv: old?.keyFromEnv ?? '',
      };
      this.providers = old ? this.providers.map((p) => (p.id === id ? view : p)) : [...this.providers, view];
      return structuredClone(view);
    });
  }
  deleteProvider(id: string) {
    return this.rec('deleteProvider', [id], () => {
      this.providers = this.providers.filter((p) => p.id !== id);
    });
  }
  testProvider(id: string) {
    return this.rec('testProvider', [id], () => this.testResults[id] ?? { ok: true, message: 'Connected: 2 models', models: this.models[id] ?? ['model-a', 'model-b'] });
  }
  listModels(providerId: string) {
    return this.rec('listModels', [providerId], () => [...(this.models[providerId] ?? ['model-a', 'model-b'])]);
  }
  detectLocal() {
    return this.rec('detectLocal', [], () => structuredClone(this.local));
  }

  listConversations() {
    return this.rec('listConversations', [], () =>
      structuredClone(this.conversations.filter((c) => !c.archived).sort((a, b) => Number(!!b.pinned) - Number(!!a.pinned))),
    );
  }
  listArchivedConversations() {
    return this.rec('listArchivedConversations', [], () => structuredClone(this.conversations.filter((c) => c.archived)));
  }
  pinConversation(id: string, pinned: boolean) {
    return this.rec('pinConversation', [id, pinned], () => {
      this.conversations = this.conversations.map((c) => (c.id === id ? { ...c, pinned } : c));
    });
  }
  archiveConversation(id: string, archived: boolean) {
    return this.rec('archiveConversation', [id, archived], () => {
      this.conversations = this.conversations.map((c) => (c.id === id ? { ...c, archived } : c));
    });
  }
  searchMessages(query: string) {
    return this.rec('searchMessages', [query], () => structuredClone(this.searchHits));
  }
  newConversation(providerId: string, model: string) {
    return this.rec('newConversation', [providerId, model], () => {
      const now = Date.now();
      const c: T.ConversationSummary = { id: `c${this.nextId++}`, title: 'New chat', providerId, model, createdAt: iso(now), updatedAt: iso(now)};
      this.conversations = [c, ...this.conversations];
      this.messages[c.id] = [];
      return structuredClone(c);
    });
  }
  renameConversation(id: string, title: string) {
    return this.rec('renameConversation', [id, title], () => {
      this.conversations = this.conversations.map((c) => (c.id === id ? { ...c, title } : c));
    });
  }
  deleteConversation(id: string) {
    return this.rec('deleteConversation', [id], () => {
      this.conversations = this.conversations.filter((c) => c.id !== id);
    });
  }
  getMessages(conversationId: string, beforeSeq: number, limit: number) {
    return this.rec('getMessages', [conversationId, beforeSeq, limit], () => {
      const all = (this.messages[conversationId] ?? []).filter((m) => beforeSeq === 0 || m.seq < beforeSeq);
      return structuredClone(all.slice(Math.max(0, all.length - limit)));
    });
  }
  getToolCalls(conversationId: string) {
    return this.rec('getToolCalls', [conversationId], () => structuredClone(this.toolCallRecords[conversationId] ?? []));
  }
  listActivity(filter: T.ActivityFilter) {
    return this.rec('listActivity', [filter], (): T.ActivityPage => {
      const q = (filter.query ?? '').toLowerCase();
      const kept = this.activityRows.filter(
        (r) =>
          (!filter.serverId || r.serverId === filter.serverId) &&
          (!filter.tool || r.tool === filter.tool) &&
          (!filter.who || r.who === filter.who) &&
          (!filter.status || r.status === filter.status) &&
          (!q || `${r.tool} ${r.arguments} ${r.error}`.toLowerCase().includes(q)),
      );
      const from = filter.cursor ? Number(filter.cursor) : 0;
      const limit = filter.limit || 100;
      const rows = structuredClone(kept.slice(from, from + limit));
      return from + limit < kept.length ? { rows, next: String(from + limit) } : { rows };
    });
  }
  activityFacets() {
    return this.rec('activityFacets', [], (): T.ActivityFacets => {
      const servers = new Map<string, { id: string; name: string; calls: number }>();
      const tools = new Map<string, { tool: string; calls: number }>();
      for (const r of this.activityRows) {
        const s = servers.get(r.serverId) ?? { id: r.serverId, name: r.serverName, calls: 0 };
        s.calls++;
        servers.set(r.serverId, s);
        const t = tools.get(r.tool) ?? { tool: r.tool, calls: 0 };
        t.calls++;
        tools.set(r.tool, t);
      }
      return { servers: [...servers.values()], tools: [...tools.values()], total: this.activityRows.length };
    });
  }
  getActivityCall(id: string) {
    return this.rec('getActivityCall', [id], () => {
      const rec = Object.values(this.toolCallRecords)
        .flat()
        .find((c) => c.id === id);
      if (!rec) throw new Error(`tool call ${id}: not found`);
      return structuredClone(rec);
    });
  }
  saveActivityExport(filter: T.ActivityFilter, format: 'jsonl' | 'csv') {
    return this.rec('saveActivityExport', [filter, format], () => structuredClone(this.activityExport));
  }
  send(conversationId: string, text: string, attachments?: T.Attachment[]) {
    return this.rec('send', attachments === undefined ? [conversationId, text] : [conversationId, text, attachments], () => {
      this.onSend?.(conversationId, text);
      return `run-${this.nextId++}`;
    });
  }
  stop(conversationId: string) {
    return this.rec('stop', [conversationId], () => undefined);
  }
  regenerate(conversationId: string) {
    return this.rec('regenerate', [conversationId], () => `run-${this.nextId++}`);
  }
  editAndResend(conversationId: string, seq: number, text: string, attachments?: T.Attachment[]) {
    return this.rec('editAndResend', attachments === undefined ? [conversationId, seq, text] : [conversationId, seq, text, attachments], () => `run-${this.nextId++}`);
  }
  /** The data URLs attachmentData answers with, by attachment id. */
  attachmentURLs: Record<string, string> = {};
  /** As Go does, by type and size: images (PNG, JPEG, GIF, WebP) up to 5 MiB, text cut at 200 KiB, the rest refused. */
  addAttachment(name: string, mime: string, dataBase64: string) {
    return this.rec('addAttachment', [name, mime, dataBase64.length], (): T.Attachment => {
      const size = Math.floor((dataBase64.length * 3) / 4) - (dataBase64.endsWith('==') ? 2 : dataBase64.endsWith('=') ? 1 : 0);
      const image = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'].includes(mime);
      if (mime.startsWith('image/') && !image) throw new Error(`this kind of file cannot be attached: ${name} is a ${mime.slice(6)} image; images can be PNG, JPEG, GIF or WebP — convert it and attach it again`);
      if (image && size > 5 << 20) throw new Error(`too large to attach: the image ${name} (${(size / (1 << 20)).toFixed(1)} MiB) is over 5 MiB, the most an image can be (providers refuse larger ones); shrink it and attach it again`);
      if (!image && mime !== '' && !mime.startsWith('text/') && !mime.endsWith('json') && mime !== 'application/pdf') {
        throw new Error(`this kind of file cannot be attached: ${name} is ${mime}; attach images (PNG, JPEG, GIF, WebP), text files (code, Markdown, CSV, JSON, logs, …) or PDFs`);
      }
      const id = `blob${this.nextId++}`;
      this.attachmentURLs[id] = `data:${mime || 'text/plain'};base64,${dataBase64}`;
      const limit = 200 << 10;
      return { id, name, mime: mime || 'text/plain', size: image ? size : Math.min(size, limit), kind: image ? 'image' : 'text', truncated: !image && size > limit ? true : undefined };
    });
  }
  attachmentData(id: string) {
    return this.rec('attachmentData', [id], () => {
      const url = this.attachmentURLs[id];
      if (!url) throw new Error(`attachment ${id}: not found`);
      return url;
    });
  }
  exportConversation(id: string, format: T.ExportFormat) {
    return this.rec('exportConversation', [id, format], () => this.exported);
  }
  setConversationModel(id: string, providerId: string, model: string) {
    return this.rec('setConversationModel', [id, providerId, model], () => {
      this.conversations = this.conversations.map((c) => (c.id === id ? { ...c, providerId, model } : c));
    });
  }
  setConversationTools(id: string, sel: T.ToolSelection | null) {
    return this.rec('setConversationTools', [id, sel], () => {
      this.conversations = this.conversations.map((c) => (c.id === id ? { ...c, tools: sel } : c));
    });
  }
  toolSetWarning = '';
  conversationTools(id: string) {
    return this.rec('conversationTools', [id], (): T.ToolSet => {
      const sel = this.conversations.find((c) => c.id === id)?.tools ?? { only: null };
      // As Go does: a selection names tools by key, "serverId/originalName".
      const tools = this.servers.flatMap((s) => s.tools).map((t) => ({
        key: toolKey(t),
        name: t.name,
        server: t.serverName,
        description: t.description,
        enabled: t.enabled,
        selected: isSelected(sel, t),
      }));
      const offered = tools.filter((t) => t.enabled && t.selected).length;
      return { selection: structuredClone(sel), tools, offered, estimatedTokens: offered * 150, warning: this.toolSetWarning || undefined };
    });
  }
  setSystemPrompt(id: string, prompt: string | null) {
    return this.rec('setSystemPrompt', [id, prompt], () => undefined);
  }

  listServers() {
    return this.rec('listServers', [], () => structuredClone(this.servers));
  }
  validateServer(cfg: T.ServerConfig) {
    return this.rec('validateServer', [cfg], () => structuredClone(this.validationErrors));
  }
  saveServer(cfg: T.ServerConfig) {
    return this.rec('saveServer', [cfg], () => {
      const old = this.servers.find((s) => s.config.id === cfg.id);
      const view: T.ServerView = old ? { ...old, config: structuredClone(cfg) } : { config: structuredClone(cfg), status: { serverId: cfg.id, state: 'disconnected', toolCount: 0 }, tools: [] };
      this.servers = old ? this.servers.map((s) => (s.config.id === cfg.id ? view : s)) : [...this.servers, view];
      return structuredClone(view);
    });
  }
  deleteServer(id: string) {
    return this.rec('deleteServer', [id], () => {
      this.servers = this.servers.filter((s) => s.config.id !== id);
    });
  }
  connectServer(id: string) {
    return this.rec('connectServer', [id], () => undefined);
  }
  disconnectServer(id: string) {
    return this.rec('disconnectServer', [id], () => undefined);
  }
  restartServer(id: string) {
    return this.rec('restartServer', [id], () => undefined);
  }
  setToolEnabled(serverId: string, tool: string, enabled: boolean) {
    return this.rec('setToolEnabled', [serverId, tool, enabled], () => undefined);
  }
  previewImport(text: string) {
    return this.rec('previewImport', [text], () => structuredClone(this.importReport));
  }
  importServers(text: string) {
    return this.rec('importServers', [text], () => {
      for (const cfg of this.importReport.added ?? []) {
        this.servers = [...this.servers, { config: structuredClone(cfg), status: { serverId: cfg.id, state: 'disconnected', toolCount: 0 }, tools: [] }];
      }
      return structuredClone(this.importReport);
    });
  }
  authorizeServer(id: string) {
    return this.rec('authorizeServer', [id], () => undefined);
  }
  cancelAuthorize(id: string) {
    return this.rec('cancelAuthorize', [id], () => undefined);
  }
  signOutServer(id: string) {
    return this.rec('signOutServer', [id], () => undefined);
  }
  /** What pickFolder answers ('' = cancelled). */
  pickedFolder = '';
  pickFolder(title: string) {
    return this.rec('pickFolder', [title], () => this.pickedFolder);
  }
  // ---- installed servers ----

  /** The Node nodeStatus answers with; null = none new enough (installing a package then asks for fetchNode). */
  node: T.NodeInfo | null = { path: '/usr/bin/node', version: '22.11.0', source: 'system', hasNpm: true };
  /** The versions of each package in the fake npm registry, oldest first; other names are not found. */
  npmVersions: Record<string, string[]> = {
    '@modelcontextprotocol/server-memory': ['2025.9.25', '2026.1.26'],
    '@modelcontextprotocol/server-sequential-thinking': ['2025.7.1', '2025.12.18'],
  };
  /** What pickPackageFile answers ('' = cancelled). */
  pickedFile = '';
  /** When set, an install or a Node download waits for it halfway (to see its progress). */
  installGate?: Promise<void>;

  /** As Go does: resolves, downloads (sending install:progress), saves and starts connecting. */
  async installServer(req: T.InstallRequest): Promise<T.ServerView> {
    await this.rec('installServer', [structuredClone(req)], () => undefined);
    const file = /\.(tgz|tar\.gz|mcpb|dxt)$/i.test(req.package);
    const bundle = /\.(mcpb|dxt)$/i.test(req.package);
    if (!bundle && !this.node?.hasNpm) {
      if (!req.fetchNode) {
        throw new Error('Switchboard needs Node.js to install this server: the system has no Node.js 20 or newer. Let Switchboard download Node.js 22 from the npm registry into its data folder, or install Node.js yourself');
      }
      await this.#downloadNode();
    }
    let name: string;
    let version: string;
    if (file) {
      // pkg-1.2.3.tgz, as npm pack names them
      const base = req.package.split(/[\\/]/).pop()!.replace(/\.(tgz|tar\.gz|mcpb|dxt)$/i, '');
      const m = /^(.*?)-(\d+\.\d+\.\d+[^/]*)$/.exec(base);
      [name, version] = m ? [m[1], m[2]] : [base, '1.0.0'];
    } else {
      const at = req.package.lastIndexOf('@');
      name = at > 0 ? req.package.slice(0, at) : req.package;
      const versions = this.npmVersions[name];
      if (!versions) throw new Error(`no such package: ${name} is not in the npm registry; check the package name`);
      version = req.version || (at > 0 ? req.package.slice(at + 1) : '') || versions[versions.length - 1];
      if (!versions.includes(version)) throw new Error(`no such version: ${name} has no version ${version} in the npm registry; leave the version empty for the latest`);
    }
    let id = req.id;
    if (!id) {
      const base = name.replace(/^@[^/]*\//, '').toLowerCase().replace(/[^a-z0-9_-]+/g, '-').slice(0, 28) || 'server';
      id = base;
      for (let n = 2; this.servers.some((s) => s.config.id === id); n++) id = `${base}-${n}`;
    } else if (this.servers.some((s) => s.config.id === id)) {
      throw new Error(`already installed: a server named ${id} exists; choose another ID`);
    }
    const step = (p: Omit<T.InstallProgress, 'id'>) => this.emit('install:progress', { id, ...p });
    step({ step: bundle ? 'unpacking' : 'resolving', detail: file ? req.package.split(/[\\/]/).pop() : `${name}@${version}` });
    if (!bundle) {
      step({ step: 'downloading', fetched: 1, detail: name });
      step({ step: 'downloading', fetched: 2, detail: 'zod' });
    }
    if (this.installGate) await this.installGate;
    step({ step: 'checking' });
    step({ step: 'done', detail: `${name}@${version}` });
    const view: T.ServerView = {
      config: {
        id, name, transport: 'stdio', command: 'node', args: ['${install}/dist/index.js'], enabled: true,
        install: { kind: bundle ? 'mcpb' : 'npm', package: name, version, file: file ? req.package.split(/[\\/]/).pop() : undefined, bin: req.bin || undefined, runtime: 'node' },
      },
      status: { serverId: id, state: 'connecting', toolCount: 0 },
      tools: [],
    };
    this.servers = [...this.servers, view];
    return structuredClone(view);
  }
  /** As Go does: the latest (or the version asked for) of an npm package, or a newer file; a pinned server needs a version. */
  updateServer(id: string, version: string, file: string) {
    return this.rec('updateServer', [id, version, file], () => {
      const s = this.servers.find((x) => x.config.id === id);
      if (!s) throw new Error(`no server "${id}"; see switchboard servers list`);
      const inst = s.config.install;
      if (!inst) throw new Error(`not installed: ${id} was not installed by Switchboard; edit its command instead`);
      if (file) {
        const m = /-(\d+\.\d+\.\d+[^/]*)\.(tgz|tar\.gz|mcpb|dxt)$/i.exec(file);
        s.config.install = { ...inst, version: m?.[1] ?? inst.version, file: file.split(/[\\/]/).pop() };
        return structuredClone(s);
      }
      if (inst.pinned && !version) throw new Error(`${id} is pinned to ${inst.version}; name a version to update to, or unpin it`);
      if (inst.kind !== 'npm' || inst.file) throw new Error(`${id} was installed from a file; install a newer file with switchboard servers update ${id} --file NEWER`);
      const versions = this.npmVersions[inst.package] ?? [inst.version];
      const v = version || versions[versions.length - 1];
      if (!versions.includes(v)) throw new Error(`no such version: ${inst.package} has no version ${v} in the npm registry; leave the version empty for the latest`);
      s.config.install = { ...inst, version: v };
      return structuredClone(s);
    });
  }
  pinServer(id: string, pinned: boolean) {
    return this.rec('pinServer', [id, pinned], () => {
      const s = this.servers.find((x) => x.config.id === id);
      if (!s) throw new Error(`no server "${id}"; see switchboard servers list`);
      if (!s.config.install) throw new Error(`${id} was not installed by Switchboard, so it has no version to pin`);
      s.config.install = { ...s.config.install, pinned };
      return structuredClone(s);
    });
  }
  nodeStatus() {
    return this.rec('nodeStatus', [], () => {
      if (!this.node) throw new Error('no Node.js 20 or newer found on this computer; let Switchboard download one, or install Node.js');
      return structuredClone(this.node);
    });
  }
  async fetchNode(): Promise<T.NodeInfo> {
    await this.rec('fetchNode', [], () => undefined);
    return this.#downloadNode();
  }
  async #downloadNode(): Promise<T.NodeInfo> {
    this.emit('install:progress', { id: 'node', step: 'node', detail: '0 of 29696 KB' });
    if (this.installGate) await this.installGate;
    this.emit('install:progress', { id: 'node', step: 'node', detail: '29696 of 29696 KB' });
    this.emit('install:progress', { id: 'node', step: 'npm', detail: '2510 of 2510 KB' });
    this.node = { path: `${this.info.dataDir}/runtime/node/22.11.0/bin/node`, version: '22.11.0', source: 'switchboard', hasNpm: true };
    this.emit('install:progress', { id: 'node', step: 'done', detail: 'Node 22.11.0' });
    return structuredClone(this.node);
  }
  pickPackageFile() {
    return this.rec('pickPackageFile', [], () => this.pickedFile);
  }

  // ---- the MCP registry ----

  /** The entries searchRegistry finds, in order. */
  registryItems: T.RegistryItem[] = [];
  /** The plan of each entry's options by "name#choice" (choice as resolved: the preferred for -1). */
  registryPlans: Record<string, T.RegistryPlan> = {};
  /** Results per page of searchRegistry. */
  registryPageSize = 20;
  /** As Go does: entries whose name or description has query, a page at a time (the cursor is the next index). */
  searchRegistry(query: string, cursor: string) {
    return this.rec('searchRegistry', [query, cursor], (): T.RegistryPage => {
      const q = query.trim().toLowerCase();
      const hits = this.registryItems.filter((i) => !q || i.entry.server.name.toLowerCase().includes(q) || i.entry.server.description.toLowerCase().includes(q));
      const from = Number(cursor) || 0;
      const to = from + this.registryPageSize;
      return { items: structuredClone(hits.slice(from, to)), nextCursor: to < hits.length ? String(to) : '', registry: 'http://registry.test', skipped: 0 };
    });
  }
  #registryPlan(name: string, choice: number): T.RegistryPlan {
    const item = this.registryItems.find((i) => i.entry.server.name === name);
    if (!item) throw new Error(`${name} is not in the registry; search again`);
    const c = choice < 0 ? item.preferred : choice;
    if (c < 0) throw new Error(`${name} offers no way to run it that Switchboard supports`);
    const o = item.options[c];
    if (!o) throw new Error(`${name} has no option ${c}`);
    if (o.unsupported) throw new Error(o.unsupported);
    const plan = this.registryPlans[`${name}#${c}`];
    if (!plan) throw new Error(`no plan for ${name} option ${c}`);
    return structuredClone(plan);
  }
  planRegistryInstall(name: string, version: string, choice: number) {
    return this.rec('planRegistryInstall', [name, version, choice], () => this.#registryPlan(name, choice));
  }
  /** As Go does: checks the values (a ValidationError's message), asks for Node for an npm package, then adds the server. */
  async installFromRegistry(req: T.RegistryInstall): Promise<T.ServerView> {
    await this.rec('installFromRegistry', [structuredClone(req)], () => undefined);
    const plan = this.#registryPlan(req.name, req.choice);
    const errs: string[] = [];
    for (const k of Object.keys(req.values ?? {})) {
      if (!plan.fields?.some((f) => f.key === k)) errs.push(`${k}: is not a value this server takes`);
    }
    for (const f of plan.fields ?? []) {
      if (f.required && !f.default && !req.values?.[f.key]) errs.push(`${f.key}: is required`);
    }
    if (errs.length) throw new Error(`invalid server config: ${errs.join('; ')}`);
    if (plan.kind === 'npm' && !this.node?.hasNpm) {
      if (!req.fetchNode) {
        throw new Error('Switchboard needs Node.js to install this server: the system has no Node.js 20 or newer. Let Switchboard download Node.js 22 from the npm registry into its data folder, or install Node.js yourself');
      }
      await this.#downloadNode();
    }
    const id = req.id || plan.id;
    if (this.servers.some((s) => s.config.id === id)) throw new Error(`a server named ${id} exists; choose another ID`);
    if (plan.kind === 'npm') {
      this.emit('install:progress', { id, step: 'resolving', detail: `${plan.package}@${plan.version}` });
      if (this.installGate) await this.installGate;
      this.emit('install:progress', { id, step: 'done', detail: `${plan.package}@${plan.version}` });
    }
    const view: T.ServerView = {
      config: {
        ...structuredClone(plan.config), id, name: plan.name, enabled: true,
        ...(plan.kind === 'npm' ? { transport: 'stdio', command: 'node', install: { kind: 'npm', package: plan.package!, version: plan.version!, runtime: 'node' } } : {}),
      },
      status: { serverId: id, state: 'connecting', toolCount: 0 },
      tools: [],
    };
    this.servers = [...this.servers, view];
    return structuredClone(view);
  }

  setServerLogLevel(id: string, level: T.ServerLogLevel | '') {
    return this.rec('setServerLogLevel', [id, level], () => {
      const s = this.servers.find((x) => x.config.id === id);
      if (!s) throw new Error(`no server "${id}"`);
      s.config.logLevel = level || undefined;
      return structuredClone(s.config);
    });
  }

  serverLogs(serverId: string, sinceSeq: number, max: number) {
    return this.rec('serverLogs', [serverId, sinceSeq, max], () => tail(this.serverLogLines[serverId] ?? [], sinceSeq, max));
  }
  appLogs(sinceSeq: number, max: number) {
    return this.rec('appLogs', [sinceSeq, max], () => tail(this.appLogLines, sinceSeq, max));
  }

  pendingApprovals() {
    return this.rec('pendingApprovals', [], () => structuredClone(this.pending));
  }
  decideApproval(id: string, decision: T.UserDecision) {
    return this.rec('decideApproval', [id, decision], () => {
      this.pending = this.pending.filter((r) => r.id !== id);
    });
  }
  approvalPolicy() {
    return this.rec('approvalPolicy', [], () => structuredClone(this.policy));
  }
  revokeGrant(serverId: string, tool: string) {
    return this.rec('revokeGrant', [serverId, tool], () => {
      this.policy = { ...this.policy, grants: this.policy.grants.filter((g) => !(g.serverId === serverId && g.tool === tool)) };
    });
  }
  setYolo(on: boolean) {
    return this.rec('setYolo', [on], () => {
      this.policy = { ...this.policy, yolo: on };
    });
  }  setReadOnlyServer(serverId: string, on: boolean) {
    return this.rec('setReadOnlyServer', [serverId, on], () => {
      const rest = (this.policy.readOnly ?? []).filter((r) => r.serverId !== serverId);
      const readOnly = on ? [...rest, { serverId, fingerprint: 'sha256:fake', createdAt: iso(0) }] : rest;
      this.policy = { ...this.policy, readOnly: readOnly.length ? readOnly : undefined };
    });
  }
  setToolPrivate(serverId: string, tool: string, on: boolean) {
    return this.rec('setToolPrivate', [serverId, tool, on], () => {
      const fingerprint = this.servers.find((s) => s.config.id === serverId)?.tools.find((t) => t.originalName === tool)?.fingerprint ?? 'sha256:fake';
      this.#setPrivate(fingerprint, tool, on ? serverId : '');
    });
  }
  unmarkPrivate(fingerprint: string, tool: string) {
    return this.rec('unmarkPrivate', [fingerprint, tool], () => this.#setPrivate(fingerprint, tool, ''));
  }
  /** Marks (serverId set) or unmarks a tool in the fake's policy. */
  #setPrivate(fingerprint: string, tool: string, serverId: string) {
    const rest = (this.policy.private ?? []).filter((p) => !(p.fingerprint === fingerprint && p.tool === tool));
    const marks = serverId ? [...rest, { fingerprint, tool, serverId, createdAt: iso(0) }] : rest;
    this.policy = { ...this.policy, private: marks.length ? marks : undefined };
  }


  listTasks(conversationId: string, active: boolean) {
    return this.rec('listTasks', [conversationId, active], () =>
      structuredClone(
        this.tasks
          .filter((t) => (!conversationId || t.conversationId === conversationId) && (!active || !taskEnded(t)))
          .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt)),
      ),
    );
  }
  /** As the backend does: records the task cancelled and sends task:update. */
  cancelTask(id: string) {
    return this.rec('cancelTask', [id], () => {
      const t = this.tasks.find((x) => x.id === id);
      if (!t) throw new Error(`no task ${id}`);
      if (taskEnded(t)) return;
      const now = iso(Date.now());
      this.updateTask({ ...t, status: 'cancelled', updatedAt: now, endedAt: now });
    });
  }

  /** Keeps t (replacing the task of its id) and sends task:update, as the backend does on every change. */
  updateTask(t: T.Task): void {
    this.tasks = this.tasks.some((x) => x.id === t.id) ? this.tasks.map((x) => (x.id === t.id ? t : x)) : [t, ...this.tasks];
    this.emit('task:update', structuredClone(t));
  }

  // ---- MCP resources, prompts and completion ----

  /** listResources' answers, by server id (a server missing here offers none). */
  resourceLists: Record<string, T.ResourceList> = {};
  /** previewResource's answers, by `${serverId} ${uri}`. */
  previews: Record<string, T.ResourcePreview> = {};
  /** listPrompts' answers, by server id. */
  promptLists: Record<string, T.PromptList> = {};
  /** usePrompt's answers, by prompt name; missing: composer mode with "name k=v…" as text. */
  promptUses: Record<string, T.PromptUse> = {};
  /** completeArgument's values: those of the argument's name that start with the value typed. */
  completions: Record<string, string[]> = {};

  listResources(serverId: string) {
    return this.rec('listResources', [serverId], () => {
      const l = this.resourceLists[serverId];
      if (!l) throw new Error(`${serverId} does not offer resources (its capabilities do not list them)`);
      return structuredClone(l);
    });
  }
  expandResourceTemplate(template: string, values: Record<string, string>) {
    return this.rec('expandResourceTemplate', [template, values], () =>
      template.replace(/\{([^}]+)\}/g, (_, k: string) => encodeURIComponent(values[k] ?? '')),
    );
  }
  previewResource(serverId: string, uri: string) {
    return this.rec('previewResource', [serverId, uri], () => {
      const p = this.previews[`${serverId} ${uri}`];
      if (!p) throw new Error(`reading ${uri}: ${serverId} answered with an error: Resource ${uri} not found (MCP error -32002)`);
      return structuredClone(p);
    });
  }
  previewContent(serverId: string, c: T.Content) {
    return this.rec('previewContent', [serverId, c], (): T.ResourcePreview => {
      const data = c.type === 'image' ? c.data : c.blob;
      const part = data
        ? { uri: c.uri ?? '', mimeType: c.mimeType, kind: 'image', dataUrl: `data:${c.mimeType};base64,${data}`, size: data.length }
        : { uri: c.uri ?? '', mimeType: c.mimeType, kind: 'text', text: c.text ?? '', size: (c.text ?? '').length };
      return { serverId, uri: c.uri ?? '', parts: [part] };
    });
  }
  attachResource(serverId: string, uri: string) {
    return this.rec('attachResource', [serverId, uri], (): T.Attachment[] => {
      const p = this.previews[`${serverId} ${uri}`];
      if (!p) throw new Error(`reading ${uri}: ${serverId} answered with an error: Resource ${uri} not found (MCP error -32002)`);
      return p.parts.map((part) => this.resourceAttachment(serverId, part.uri || uri, part.mimeType ?? 'text/plain', part.kind === 'image', part.size));
    });
  }
  attachContent(serverId: string, c: T.Content) {
    return this.rec('attachContent', [serverId, c], () =>
      this.resourceAttachment(serverId, c.uri ?? '', c.mimeType ?? 'text/plain', c.type === 'image', (c.text ?? c.blob ?? c.data ?? '').length),
    );
  }
  private resourceAttachment(serverId: string, uri: string, mime: string, image: boolean, size: number): T.Attachment {
    const id = `blob${this.nextId++}`;
    const name = uri.split('/').filter(Boolean).pop() || 'resource';
    return { id, name, mime, size, kind: image ? 'image' : 'text', serverId, uri };
  }
  subscribeResource(serverId: string, uri: string) {
    return this.rec('subscribeResource', [serverId, uri], () => {
      const l = this.resourceLists[serverId];
      if (l && !l.subscribed.includes(uri)) l.subscribed.push(uri);
    });
  }
  unsubscribeResource(serverId: string, uri: string) {
    return this.rec('unsubscribeResource', [serverId, uri], () => {
      const l = this.resourceLists[serverId];
      if (l) l.subscribed = l.subscribed.filter((u) => u !== uri);
    });
  }
  completeArgument(serverId: string, ref: T.CompletionRef, arg: string, value: string, filled: Record<string, string>) {
    return this.rec('completeArgument', [serverId, ref, arg, value, filled], (): T.Completion => ({
      values: (this.completions[arg] ?? []).filter((v) => v.startsWith(value)),
    }));
  }
  listPrompts(serverId: string) {
    return this.rec('listPrompts', [serverId], () => {
      const l = this.promptLists[serverId];
      if (!l) throw new Error(`${serverId} does not offer prompts (its capabilities do not list them)`);
      return structuredClone(l);
    });
  }
  usePrompt(serverId: string, name: string, args: Record<string, string>) {
    return this.rec('usePrompt', [serverId, name, args], (): T.PromptUse => {
      const u = this.promptUses[name];
      if (u) return structuredClone(u);
      const text = [name, ...Object.entries(args).map(([k, v]) => `${k}=${v}`)].join(' ');
      return { mode: 'composer', text, attachments: [], prompt: { serverId, name, messages: [{ role: 'user', content: { type: 'text', text } }] } };
    });
  }
  /** As the backend does: stores each message done and sends chat:message. */
  appendPrompt(conversationId: string, prompt: T.PromptResult) {
    return this.rec('appendPrompt', [conversationId, prompt], () => {
      const list = (this.messages[conversationId] ??= []);
      const out: T.Message[] = [];
      for (const pm of prompt.messages) {
        const last = list[list.length - 1];
        const m: T.Message = {
          id: this.nextId++, conversationId, seq: (last?.seq ?? 0) + 1, role: pm.role === 'assistant' ? 'assistant' : 'user',
          content: pm.content.text ?? '', reasoning: '', toolCalls: null, toolCallId: '', status: 'done', error: '', meta: null,
          createdAt: iso(Date.now()), updatedAt: iso(Date.now()),
        };
        list.push(m);
        out.push(m);
        this.emit('chat:message', structuredClone(m));
      }
      return out;
    });
  }

  // ---- what servers ask of the user ----

  /** The requests for input and for completions that wait, as the backend holds them. */
  elicitations: T.ElicitRequest[] = [];
  samplings: T.SamplingRequest[] = [];
  /** What the page last said of its visibility (null: nothing yet). */
  visible: boolean | null = null;

  pendingElicitations() {
    return this.rec('pendingElicitations', [], () => structuredClone(this.elicitations));
  }
  /** As the backend does: the request stops waiting and elicit:ended says it was answered. */
  answerElicitation(id: string, answer: T.ElicitAnswer) {
    return this.rec('answerElicitation', [id, answer], () => {
      const r = this.elicitations.find((x) => x.id === id);
      if (!r) throw new Error('this request is no longer waiting for an answer');
      this.elicitations = this.elicitations.filter((x) => x.id !== id);
      this.emit('elicit:ended', { id, serverId: r.serverId, serverName: r.serverName, outcome: 'answered', summary: r.message });
    });
  }
  pendingSamplings() {
    return this.rec('pendingSamplings', [], () => structuredClone(this.samplings));
  }
  answerSampling(id: string, decision: T.SamplingDecision) {
    return this.rec('answerSampling', [id, decision], () => {
      const r = this.samplings.find((x) => x.id === id);
      if (!r) throw new Error('this request is no longer waiting for an answer');
      this.samplings = this.samplings.filter((x) => x.id !== id);
      this.emit('sampling:ended', { id, serverId: r.serverId, serverName: r.serverName, outcome: 'answered', summary: '' });
    });
  }
  windowVisible(visible: boolean) {
    return this.rec('windowVisible', [visible], () => {
      this.visible = visible;
    });
  }

  // ---- servers' views (MCP Apps) ----

  /** The views open now (openAppView adds one, closeAppView removes it), by id. */
  openViews = new Map<string, T.AppView>();
  /** appViewCallTool's results, by tool name; a tool missing here is refused, as Go refuses one not for views. */
  viewToolResults: Record<string, T.ToolResult> = {};
  /** appViewReadResource's answers, by URI; a URI missing here is not found. */
  viewResources: Record<string, T.ResourceContents> = {};

  /** As Go does: a view only for a tool of a listed server that declares one. */
  openAppView(conversationId: string, serverId: string, tool: string) {
    return this.rec('openAppView', [conversationId, serverId, tool], (): T.AppView => {
      const s = this.servers.find((x) => x.config.id === serverId);
      const t = s?.tools.find((x) => x.originalName === tool);
      if (!s || !t?.ui) throw new Error(`${tool} of ${serverId} declares no view`);
      const id = `view${this.nextId++}`;
      const v: T.AppView = {
        id, url: `/mcp-view/${id}`, serverId, serverName: s.config.name, tool, resourceUri: t.ui.resourceUri,
        csp: "default-src 'none'; script-src 'self' 'unsafe-inline'", allow: '', prefersBorder: true, externalDomains: [],
      };
      this.openViews.set(id, v);
      return structuredClone(v);
    });
  }
  appViewCallTool(viewId: string, tool: string, args: Record<string, unknown>) {
    return this.rec('appViewCallTool', [viewId, tool, args], (): T.ToolResult => {
      if (!this.openViews.has(viewId)) throw new Error('the view is closed; open it again from its tool call');
      const r = this.viewToolResults[tool];
      if (!r) throw new Error(`refused to the view: ${tool} is not a tool of its server that views may call`);
      return structuredClone(r);
    });
  }
  appViewReadResource(viewId: string, uri: string) {
    return this.rec('appViewReadResource', [viewId, uri], (): T.ResourceContents => {
      if (!this.openViews.has(viewId)) throw new Error('the view is closed; open it again from its tool call');
      const r = this.viewResources[uri];
      if (!r) throw new Error(`reading ${uri}: Resource ${uri} not found (MCP error -32002)`);
      return structuredClone(r);
    });
  }
  appViewOpenLink(viewId: string, url: string) {
    return this.rec('appViewOpenLink', [viewId, url], () => {
      if (!/^https?:\/\//i.test(url)) throw new Error('refused to the view: only http and https links open');
    });
  }
  closeAppView(viewId: string) {
    return this.rec('closeAppView', [viewId], () => {
      this.openViews.delete(viewId);
    });
  }

  // ---- connected apps ----

  /** The connected apps, as the registry holds them (grants is counted on the way out). */
  clientApps: T.ClientApp[] = [];
  /** Every grant, of every app. */
  clientGrantList: T.ClientGrant[] = [];
  /** Allowed tools, by client id. */
  clientToolRefs: Record<string, T.ClientToolRef[]> = {};
  /** The audit, newest first (clientAudit filters and pages it as Go does). */
  auditEntries: T.AuditEntry[] = [];
  endpoint: T.EndpointStatus = { on: false, port: 0, url: '' };
  /** What connectAppStatus says of each app's file. */
  connectFiles: Partial<Record<T.ConnectTarget, Partial<T.ConnectPreview>>> = {};
  /** The last token a client got (tests read it as an app would). */
  tokens: Record<string, string> = {};

  #client(nameOrId: string): T.ClientApp {
    const c = this.clientApps.find((x) => x.id === nameOrId || x.name.toLowerCase() === nameOrId.toLowerCase());
    if (!c) throw new Error(`no connected app "${nameOrId}": see switchboard clients list`);
    return c;
  }
  #view(c: T.ClientApp): T.ClientApp {
    return structuredClone({ ...c, grants: this.clientGrantList.filter((g) => g.clientId === c.id).length });
  }
  #token(id: string): string {
    const t = `sbc_fake${this.nextId++}`;
    this.tokens[id] = t;
    return t;
  }
  listClients() {
    return this.rec('listClients', [], () => this.clientApps.map((c) => this.#view(c)));
  }
  addClient(name: string, canStart: boolean) {
    return this.rec('addClient', [name, canStart], (): T.AddedClient => {
      const n = name.trim();
      if (!n) throw new Error('a connected app needs a name');
      if (this.clientApps.some((c) => c.name.toLowerCase() === n.toLowerCase())) throw new Error(`a connected app named "${n}" exists; pick another name`);
      const zero = '0001-01-01T00:00:00Z';
      const c: T.ClientApp = { id: `cl${this.nextId++}`, name: n, canStart, createdAt: iso(Date.now()), lastSeenAt: zero, revokedAt: zero, grants: 0 };
      this.clientApps = [...this.clientApps, c];
      return { client: this.#view(c), token: this.#token(c.id) };
    });
  }
  rotateClientToken(client: string) {
    return this.rec('rotateClientToken', [client], () => {
      const c = this.#client(client);
      c.revokedAt = '0001-01-01T00:00:00Z';
      return this.#token(c.id);
    });
  }
  revokeClient(client: string) {
    return this.rec('revokeClient', [client], () => {
      this.#client(client).revokedAt = iso(Date.now());
      delete this.tokens[this.#client(client).id];
    });
  }
  removeClient(client: string) {
    return this.rec('removeClient', [client], () => {
      const c = this.#client(client);
      this.clientApps = this.clientApps.filter((x) => x.id !== c.id);
      this.clientGrantList = this.clientGrantList.filter((g) => g.clientId !== c.id);
      delete this.clientToolRefs[c.id];
    });
  }
  setClientCanStart(client: string, on: boolean) {
    return this.rec('setClientCanStart', [client, on], () => {
      this.#client(client).canStart = on;
    });
  }
  clientGrants(client: string) {
    return this.rec('clientGrants', [client], () => structuredClone(this.clientGrantList.filter((g) => g.clientId === this.#client(client).id)));
  }
  conversationGrants(conversationId: string) {
    return this.rec('conversationGrants', [conversationId], () => structuredClone(this.clientGrantList.filter((g) => g.conversationId === conversationId)));
  }
  grantClient(client: string, conversationId: string, access: T.ClientAccess, expiresInMs: number) {
    return this.rec('grantClient', [client, conversationId, access, expiresInMs], () => {
      const c = this.#client(client);
      const conv = this.conversations.find((x) => x.id === conversationId);
      if (!conv) throw new Error(`no conversation ${conversationId}`);
      const g: T.ClientGrant = {
        clientId: c.id, clientName: c.name, conversationId, title: conv.title, access, owned: false,
        expiresAt: expiresInMs ? iso(Date.now() + expiresInMs) : '0001-01-01T00:00:00Z', createdAt: iso(Date.now()), expired: false,
      };
      this.clientGrantList = [...this.clientGrantList.filter((x) => !(x.clientId === c.id && x.conversationId === conversationId)), g];
    });
  }
  ungrantClient(client: string, conversationId: string) {
    return this.rec('ungrantClient', [client, conversationId], () => {
      const c = this.#client(client);
      this.clientGrantList = this.clientGrantList.filter((x) => !(x.clientId === c.id && x.conversationId === conversationId));
    });
  }
  clientTools(client: string) {
    return this.rec('clientTools', [client], () => structuredClone(this.clientToolRefs[this.#client(client).id] ?? []));
  }
  allowClientTool(client: string, serverId: string, tool: string) {
    return this.rec('allowClientTool', [client, serverId, tool], () => {
      const id = this.#client(client).id;
      const list = (this.clientToolRefs[id] ?? []).filter((t) => !(t.serverId === serverId && t.tool === tool));
      this.clientToolRefs[id] = [...list, { serverId, tool }];
    });
  }
  disallowClientTool(client: string, serverId: string, tool: string) {
    return this.rec('disallowClientTool', [client, serverId, tool], () => {
      const id = this.#client(client).id;
      this.clientToolRefs[id] = (this.clientToolRefs[id] ?? []).filter((t) => !(t.serverId === serverId && t.tool === tool));
    });
  }
  /** As Go does: client by ID or name, exact operation, text in the operation or reason, ids below before, newest first. */
  clientAudit(filter: Partial<T.AuditFilter>) {
    return this.rec('clientAudit', [filter], () => {
      const q = (filter.query ?? '').toLowerCase();
      const limit = Math.min(filter.limit || 200, 1000);
      return structuredClone(
        this.auditEntries
          .filter((e) => !filter.client || e.clientId === filter.client || e.clientName.toLowerCase() === filter.client.toLowerCase())
          .filter((e) => !filter.operation || e.operation === filter.operation)
          .filter((e) => filter.allowed === undefined || filter.allowed === null || e.allowed === filter.allowed)
          .filter((e) => !q || e.operation.toLowerCase().includes(q) || e.reason.toLowerCase().includes(q))
          .filter((e) => !filter.before || e.id < filter.before)
          .sort((a, b) => b.id - a.id)
          .slice(0, limit),
      );
    });
  }
  /** Records a request as the server does, and sends clients:activity. */
  recordAudit(e: Partial<T.AuditEntry> & Pick<T.AuditEntry, 'operation' | 'allowed'>): T.AuditEntry {
    const id = (this.auditEntries[0]?.id ?? 0) + 1;
    const entry: T.AuditEntry = { id, clientId: '', clientName: '', transport: 'stdio', conversationId: '', reason: '', at: iso(Date.now()), ...e };
    this.auditEntries = [entry, ...this.auditEntries];
    this.emit('clients:activity', structuredClone(entry));
    return entry;
  }
  clientEndpoint() {
    return this.rec('clientEndpoint', [], () => structuredClone(this.endpoint));
  }
  setClientEndpoint(on: boolean, port: number) {
    return this.rec('setClientEndpoint', [on, port], () => {
      const p = on ? port || 43117 : port;
      this.endpoint = on ? { on, port: p, url: `http://127.0.0.1:${p}/mcp` } : { on: false, port, url: '' };
      return structuredClone(this.endpoint);
    });
  }
  #preview(app: T.ConnectTarget): T.ConnectPreview {
    const label = { 'claude-desktop': 'Claude Desktop', vscode: 'VS Code', cursor: 'Cursor' }[app];
    const key = app === 'vscode' ? 'servers' : 'mcpServers';
    return { app, label, path: `/home/ann/.config/${app}/mcp.json`, key, server: 'switchboard', json: '', exists: false, replaces: false, ...this.connectFiles[app] };
  }
  connectAppStatus(app: T.ConnectTarget) {
    return this.rec('connectAppStatus', [app], () => this.#preview(app));
  }
  connectApp(app: T.ConnectTarget, canStart: boolean) {
    return this.rec('connectApp', [app, canStart], (): T.AppConnection => {
      const p = this.#preview(app);
      let c = this.clientApps.find((x) => x.name.toLowerCase() === p.label.toLowerCase());
      const rotated = !!c;
      if (!c) {
        const zero = '0001-01-01T00:00:00Z';
        c = { id: `cl${this.nextId++}`, name: p.label, canStart, createdAt: iso(Date.now()), lastSeenAt: zero, revokedAt: zero, grants: 0 };
        this.clientApps = [...this.clientApps, c];
      }
      c.revokedAt = '0001-01-01T00:00:00Z';
      const token = this.#token(c.id);
      const json = JSON.stringify({ [p.key]: { switchboard: { command: '/usr/bin/switchboard', args: ['mcp', 'serve'], env: { SWITCHBOARD_CLIENT_TOKEN: token } } } }, null, 2) + '\n';
      return { client: this.#view(c), token, preview: { ...p, json }, rotated };
    });
  }
  /** Whether the view follows other processes' activity (watchClientActivity). */
  watchingActivity = false;
  watchClientActivity(on: boolean) {
    return this.rec('watchClientActivity', [on], () => {
      this.watchingActivity = on;
    });
  }
  /** The entries writeAppConfig wrote, by app. */
  writtenConfigs: Partial<Record<T.ConnectTarget, string>> = {};
  writeAppConfig(app: T.ConnectTarget, token: string) {
    return this.rec('writeAppConfig', [app, token], (): T.ConnectWritten => {
      const p = this.#preview(app);
      if (p.problem) throw new Error(`Switchboard did not change ${p.path}: it is not plain JSON; copy the entry and add it to the file yourself`);
      this.writtenConfigs[app] = token;
      return { path: p.path, backup: p.exists ? `${p.path}.bak` : undefined, replaced: p.replaces };
    });
  }

  on<K extends EventName>(event: K, handler: (payload: EventPayloads[K]) => void): Unsubscribe {
    const set = this.handlers.get(event) ?? new Set();
    set.add(handler as (p: unknown) => void);
    this.handlers.set(event, set);
    return () => set.delete(handler as (p: unknown) => void);
  }

  emit<K extends EventName>(event: K, payload: EventPayloads[K]): void {
    for (const h of this.handlers.get(event) ?? []) h(payload);
  }

  listeners(event: EventName): number {
    return this.handlers.get(event)?.size ?? 0;
  }
}

function tail(lines: T.LogLine[], sinceSeq: number, max: number): T.LogLine[] {
  const after = lines.filter((l) => l.seq > sinceSeq);
  return structuredClone(max > 0 ? after.slice(-max) : after);
}

const taskEnded = (t: T.Task) => t.status === 'completed' || t.status === 'failed' || t.status === 'cancelled';

/** A task with defaults (working, started now), for tests and the demo. */
export function fakeTask(t: Partial<T.Task> & Pick<T.Task, 'id'>): T.Task {
  const now = iso(Date.now());
  return {
    serverId: 'jobs',
    serverName: 'Jobs',
    taskId: `srv-${t.id}`,
    toolCallId: `rec-${t.id}`,
    conversationId: 'c1',
    tool: 'slow_task',
    status: 'working',
    statusMessage: '',
    result: null,
    error: '',
    pollIntervalMs: 500,
    ttlMs: 0,
    createdAt: now,
    updatedAt: now,
    ...t,
  };
}

/** A message with defaults, for tests and the demo. */
export function fakeMessage(m: Partial<T.Message> & Pick<T.Message, 'id' | 'seq' | 'role'>): T.Message {
  return {
    conversationId: 'c1',
    content: '',
    reasoning: '',
    toolCalls: [],
    toolCallId: '',
    status: 'done',
    error: '',
    meta: null,
    createdAt: iso(Date.now()),
    updatedAt: iso(Date.now()),
    ...m,
  };
}
