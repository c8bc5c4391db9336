import { describe, expect, it } from 'vitest';
import { CallToolResultSchema, ReadResourceResultSchema } from '@modelcontextprotocol/core';
import { errorCallResult, parseArguments, toCallToolResult, toReadResourceResult, wireAnnotations } from './wire';

describe('toCallToolResult', () => {
  it('turns Go’s Result into MCP’s CallToolResult: _meta, nested resources, the required fields set', () => {
    const got = toCallToolResult({
      content: [
        { type: 'text', text: 'hi', annotations: { audience: ['user'], priority: 0.5 } },
        { type: 'image', mimeType: 'image/png', data: 'iVBO' },
        { type: 'audio', data: 'AAAA' },
        { type: 'resource_link', uri: 'file:///a.md', mimeType: 'text/markdown', size: 12 },
        { type: 'resource', uri: 'file:///b.txt', mimeType: 'text/plain', text: 'b' },
        { type: 'resource', uri: 'file:///c.bin', blob: 'AAEC' },
        { type: 'resource', uri: 'file:///empty' },
        { type: 'tool_use' },
      ],
      structuredContent: { time: '12:00' },
      structuredWarning: 'does not match its schema',
      isError: true,
      meta: { 'io.example/x': 1 },
      task: { serverId: 's', taskId: 't', status: 'working', createdAt: '', lastUpdatedAt: '' },
    });
    expect(got).toEqual({
      content: [
        { type: 'text', text: 'hi', annotations: { audience: ['user'], priority: 0.5 } },
        { type: 'image', data: 'iVBO', mimeType: 'image/png' },
        { type: 'audio', data: 'AAAA', mimeType: 'application/octet-stream' },
        { type: 'resource_link', uri: 'file:///a.md', name: 'file:///a.md', mimeType: 'text/markdown', size: 12 },
        { type: 'resource', resource: { uri: 'file:///b.txt', mimeType: 'text/plain', text: 'b' } },
        { type: 'resource', resource: { uri: 'file:///c.bin', blob: 'AAEC' } },
        { type: 'resource', resource: { uri: 'file:///empty', text: '' } },
        { type: 'text', text: '[tool_use content]' },
      ],
      structuredContent: { time: '12:00' },
      isError: true,
      _meta: { 'io.example/x': 1 },
    });
    // What the view's SDK checks it against.
    expect(CallToolResultSchema.safeParse(got).success).toBe(true);
  });

  it('leaves out what MCP would refuse: structured content that is no object, bad annotations, a missing result', () => {
    expect(toCallToolResult({ content: [{ type: 'text', text: 'x', annotations: { audience: 'everyone', priority: 7 } }], structuredContent: [1, 2], meta: undefined })).toEqual({
      content: [{ type: 'text', text: 'x' }],
    });
    expect(toCallToolResult(null)).toEqual({ content: [] });
    // A result read back from the audit that is not a Result at all.
    expect(toCallToolResult({ content: 'nope' } as never)).toEqual({ content: [] });
    expect(wireAnnotations({ lastModified: '2025-01-01T00:00:00Z', audience: ['assistant', 'user'] })).toEqual({ lastModified: '2025-01-01T00:00:00Z', audience: ['assistant', 'user'] });
    expect(CallToolResultSchema.safeParse(errorCallResult('denied')).success).toBe(true);
  });
});

describe('toReadResourceResult', () => {
  it('gives each part as text or, when binary, as a blob', () => {
    const got = toReadResourceResult({
      contents: [
        { uri: 'ui://a', mimeType: 'text/html;profile=mcp-app', text: '<p>' },
        { uri: 'ui://b', blob: 'AAEC', binary: true },
        { uri: 'ui://c', binary: true },
        { uri: 'ui://d' },
      ],
    });
    expect(got).toEqual({
      contents: [
        { uri: 'ui://a', mimeType: 'text/html;profile=mcp-app', text: '<p>' },
        { uri: 'ui://b', blob: 'AAEC' },
        { uri: 'ui://c', blob: '' },
        { uri: 'ui://d', text: '' },
      ],
    });
    expect(ReadResourceResultSchema.safeParse(got).success).toBe(true);
    expect(toReadResourceResult(null)).toEqual({ contents: [] });
  });
});

describe('parseArguments', () => {
  it('gives the model’s arguments as an object, {} for anything else', () => {
    expect(parseArguments('{"a":1}')).toEqual({ a: 1 });
    for (const bad of ['', '[1]', '"s"', '{"a":', 'null', undefined]) expect(parseArguments(bad)).toEqual({});
  });
});
