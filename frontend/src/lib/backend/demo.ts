// A FakeBackend filled with sample data and a pretend model, for working on
// the UI in a plain browser (`npm run dev` without Wails). Dev builds only.
import { FakeBackend, fakeMessage, fakeTask } from './fake';
import type { Message, ServerView } from './types';

const iso = (ms: number) => new Date(ms).toISOString();

const sample = `Here is a **summary** with a [link](https://example.com) and raw <b>html</b> shown as text.

| Tool | Calls |
| --- | ---: |
| read_file | 12 |
| search | 3 |

\`\`\`ts
export function add(a: number, b: number): number {
  return a + b; // typed
}
\`\`\`

1. First
2. Second

> A quote.`;

export function demoBackend(opts: { empty?: boolean } = {}): FakeBackend {
  const be = new FakeBackend();
  be.info.version = 'switchboard dev (demo data)';
  if (opts.empty) {
    be.local = [{ preset: be.presets[4], models: [{ id: 'llama3.2:3b' }, { id: 'qwen2.5:7b' }] }];
    return be;
  }
  be.providers = [
    { id: 'cerebras', name: 'Cerebras', preset: 'cerebras', baseUrl: 'https://api.cerebras.ai/v1', defaultModel: 'gpt-oss-120b', hasKey: true, keyFromEnv: '' },
    { id: 'ollama', name: 'Ollama', preset: 'ollama', baseUrl: 'http://localhost:11434/v1', defaultModel: 'llama3.2:3b', hasKey: false, keyFromEnv: '' },
  ];
  be.models = { cerebras: ['gpt-oss-120b', 'llama-3.3-70b', 'qwen-3-32b'], ollama: ['llama3.2:3b'] };
  be.settings.defaultProviderId = 'cerebras';
  const now = Date.now();
  const day = 86_400_000;
  be.conversations = [
    { id: 'big', title: 'A long conversation (3,000 messages)', providerId: 'cerebras', model: 'gpt-oss-120b', createdAt: iso(now - 3 * day), updatedAt: iso(now - 60_000)},
    { id: 'c2', title: 'Yesterday’s chat', providerId: 'cerebras', model: 'gpt-oss-120b', createdAt: iso(now - day), updatedAt: iso(now - day - 3_600_000)},
    { id: 'c3', title: 'Last week', providerId: 'ollama', model: 'llama3.2:3b', createdAt: iso(now - 4 * day), updatedAt: iso(now - 4 * day)},
    { id: 'c4', title: 'Long ago', providerId: 'cerebras', model: 'gpt-oss-120b', createdAt: iso(now - 40 * day), updatedAt: iso(now - 40 * day)},
  ];
  const big: Message[] = [];
  for (let i = 1; i <= 3000; i++) {
    const user = i % 2 === 1;
    big.push(
      fakeMessage({
        id: i,
        seq: i,
        conversationId: 'big',
        role: user ? 'user' : 'assistant',
        content: user ? `Question number ${i}` : i % 10 === 0 ? sample : `Answer ${i}: ${'lorem ipsum '.repeat((i % 7) * 6 + 2)}`,
        meta: user ? null : { model: 'gpt-oss-120b', timeToFirstTokenMs: 180 + (i % 50), tokensPerSecond: 1800 + (i % 300) },
      }),
    );
  }
  const last = big[big.length - 1];
  last.toolCalls = [{ id: 'call_1', name: 'files__read_file', arguments: JSON.stringify({ path: '/home/me/notes/todo.md', long: 'x'.repeat(700) }) }];
  be.toolCallRecords.big = [
    {
      id: 'rec1', callId: 'call_1', conversationId: 'big', messageId: last.id, serverId: 'files', serverName: 'Files', tool: 'read_file',
      arguments: last.toolCalls[0].arguments, status: 'done', decision: 'allow_once', decidedBy: 'user', result: null, isError: false, error: '', requestedAt: iso(now - 5000), startedAt: iso(now - 4800), durationMs: 412,
    },
  ];
  be.messages = { big, c2: [], c3: [], c4: [] };
  be.toolCallRecords.big[0].result = {
    content: [
      { type: 'text', text: '# Notes\n- <script>alert(1)</script> stays text\n- buy milk' },
      { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAKElEQVR42mNkYPj/n4EIwDiqgWE0DBhGw4BhNAwYRsOAYTQMGIYEAQAt6x/xbxZ1sgAAAABJRU5ErkJggg==' },
    ],
  };
  be.searchHits = [{ conversationId: 'big', conversationTitle: 'A long conversation', role: 'user', messageId: 11, seq: 11, createdAt: iso(now), snippet: [{ text: 'Question ' }, { text: 'number', match: true }, { text: ' 11' }] }];
  const servers: ServerView[] = [
    {
      config: { id: 'files', name: 'Files', transport: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me'], enabled: true, env: { API_KEY: { secretRef: 'server/files/env/API_KEY' } } },
      status: { serverId: 'files', state: 'connected', toolCount: 2, protocolVersion: '2025-06-18' },
      tools: [
        {
          name: 'files__read_file', serverId: 'files', serverName: 'Files', originalName: 'read_file', description: 'Read a file from disk.',
          inputSchema: { type: 'object', properties: { path: { type: 'string' }, range: { type: 'object', properties: { from: { type: 'integer', minimum: 1 } } } }, required: ['path'], additionalProperties: false },
          schema: {
            $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object',
            properties: { path: { type: 'string' }, range: { $ref: '#/$defs/range' } }, required: ['path'], additionalProperties: false,
            $defs: { range: { type: 'object', properties: { from: { type: 'integer', minimum: 1 } } } },
          },
          enabled: true,
        },
        { name: 'files__write_file', serverId: 'files', serverName: 'Files', originalName: 'write_file', description: 'Write a file.', inputSchema: {}, enabled: false },
      ],
    },
    { config: { id: 'linear', name: 'Linear', transport: 'http', url: 'https://mcp.linear.app/mcp', enabled: true }, status: { serverId: 'linear', state: 'needs-auth', toolCount: 0, reason: 'the server asks for sign-in' }, tools: [] },
    {
      config: { id: 'broken', name: 'Broken', transport: 'stdio', command: 'nope', enabled: true },
      status: { serverId: 'broken', state: 'failed', toolCount: 0, reason: 'nope not found on PATH; set the full path in the server’s command', lastStderr: ['sh: nope: not found'] },
      tools: [],
    },
  ];
  be.servers = servers;
  be.tasks = [
    fakeTask({ id: 't1', conversationId: 'big', toolCallId: 'rec-index', serverId: 'files', serverName: 'Files', tool: 'files__index', statusMessage: 'Indexed 1,204 of 5,000 files', createdAt: iso(now - 95_000), updatedAt: iso(now - 2000) }),
    fakeTask({
      id: 't2', conversationId: 'c2', toolCallId: 'rec-report', serverId: 'files', serverName: 'Files', tool: 'files__build_report', status: 'failed', error: 'the disk is full',
      createdAt: iso(now - day), updatedAt: iso(now - day + 42_000), endedAt: iso(now - day + 42_000),
    }),
    fakeTask({
      id: 't3', conversationId: 'big', toolCallId: 'rec1', serverId: 'files', serverName: 'Files', tool: 'files__read_file', status: 'completed',
      createdAt: iso(now - 4800), updatedAt: iso(now - 4388), endedAt: iso(now - 4388),
    }),
  ];
  be.appLogLines = Array.from({ length: 200 }, (_, i) => ({ seq: i + 1, time: iso(now - (200 - i) * 1000), level: (['info', 'debug', 'warn', 'error'] as const)[i % 4], text: `app line ${i + 1}` }));
  be.policy = { yolo: false, grants: [{ serverId: 'files', tool: 'read_file', fingerprint: 'abc', createdAt: iso(now - day)}] };
  be.pending = [];
  be.importReport = {
    format: 'claude',
    added: [{ id: 'github', name: 'github', transport: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], enabled: true }],
    skipped: [{ server: 'files', id: 'files', message: 'already configured as "Files"' }],
    failed: [{ server: 'weird', message: 'has neither "command" nor "url"' }],
  };

  let nextId = 100_000;
  be.onSend = (conversationId, text) => {
    const list = be.messages[conversationId] ?? (be.messages[conversationId] = []);
    const seq = (list[list.length - 1]?.seq ?? 0) + 1;
    const user = fakeMessage({ id: nextId++, seq, conversationId, role: 'user', content: text });
    list.push(user);
    be.emit('chat:message', user);
    const reply = fakeMessage({ id: nextId++, seq: seq + 1, conversationId, role: 'assistant', status: 'streaming' });
    list.push(reply);
    be.emit('chat:message', structuredClone(reply));
    be.emit('chat:status', { conversationId, state: 'retrying', message: 'rate limited, retrying in 2 s', retryInMs: 2000 });
    setTimeout(() => be.emit('chat:status', { conversationId, state: 'streaming' }), 300);
    const words = sample.split(/(?<=\s)/);
    let i = 0;
    const t = setInterval(() => {
      for (let k = 0; k < 3 && i < words.length; k++, i++) {
        reply.content += words[i];
        be.emit('chat:delta', { conversationId, messageId: reply.id, content: words[i] });
      }
      if (i >= words.length) {
        clearInterval(t);
        reply.status = 'done';
        reply.meta = { model: 'gpt-oss-120b', timeToFirstTokenMs: 210, tokensPerSecond: 2100 };
        be.emit('chat:message', structuredClone(reply));
        be.emit('chat:status', { conversationId, state: 'idle' });
        be.emit('chat:done', { conversationId, runId: 'demo', status: 'done' });
        if (/tool/i.test(text)) {
          be.pending = [{ id: 'ap' + nextId++, conversationId, serverId: 'files', tool: 'write_file', serverName: 'Files', description: 'Write a file to disk.', fingerprint: 'f', arguments: { path: '/tmp/x', content: 'y'.repeat(900) } }];
          be.emit('approval:requested', be.pending[0]);
        }
      }
    }, 30);
  };
  // Connected apps: one that uses a shared conversation, one revoked.
  const first = be.conversations[0];
  be.clientApps = [
    { id: 'app1', name: 'Claude Desktop', canStart: false, createdAt: iso(now - 3 * day), lastSeenAt: iso(now - 4 * 60_000), grants: first ? 1 : 0 },
    { id: 'app2', name: 'nightly summary script', canStart: true, createdAt: iso(now - 9 * day), revokedAt: iso(now - day), grants: 0 },
  ];
  if (first) {
    be.clientGrantList = [{ clientId: 'app1', clientName: 'Claude Desktop', conversationId: first.id, title: first.title, access: 'read', owned: false, expiresAt: iso(now + 6 * day), createdAt: iso(now - day), expired: false }];
    be.auditEntries = [
      { id: 3, clientId: 'app1', clientName: 'Claude Desktop', transport: 'stdio', operation: 'tools/call read_conversation', conversationId: first.id, allowed: true, reason: '', at: iso(now - 4 * 60_000) },
      { id: 2, clientId: 'app1', clientName: 'Claude Desktop', transport: 'stdio', operation: 'tools/call read_conversation', conversationId: 'other', allowed: false, reason: 'conversation "other" is not shared with Claude Desktop; ask the user to share it', at: iso(now - 5 * 60_000) },
      { id: 1, clientId: '', clientName: '', transport: 'http', operation: 'auth', conversationId: '', allowed: false, reason: 'no valid token: unknown, malformed or revoked', at: iso(now - 60 * 60_000) },
    ];
  }
  return be;
}
