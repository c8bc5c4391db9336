// What a view gets, in MCP's wire shapes: Go's mcpconn.Result names its
// metadata `meta` (not `_meta`) and keeps an embedded resource flat, so
// results and resources are converted here before the bridge sends them.
// The view's SDK checks every message against MCP's schemas and drops one
// that fails, so fields a schema requires are always set and anything of
// the wrong type is left out.
import type { CallToolResult, ContentBlock, ReadResourceResult } from '@modelcontextprotocol/client';
import type { Content, ToolResult } from '../../backend';

/** One part of a resource as read (Go's mcpconn.ResourceContent). */
export interface ResourcePart {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  binary?: boolean;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** MCP's annotations (audience, priority 0..1, lastModified), the valid fields only; undefined when none is. */
export function wireAnnotations(a: unknown): { audience?: ('user' | 'assistant')[]; priority?: number; lastModified?: string } | undefined {
  if (!isRecord(a)) return undefined;
  const out: { audience?: ('user' | 'assistant')[]; priority?: number; lastModified?: string } = {};
  if (Array.isArray(a.audience) && a.audience.every((x) => x === 'user' || x === 'assistant')) out.audience = a.audience as ('user' | 'assistant')[];
  if (typeof a.priority === 'number' && a.priority >= 0 && a.priority <= 1) out.priority = a.priority;
  if (typeof a.lastModified === 'string') out.lastModified = a.lastModified;
  return Object.keys(out).length ? out : undefined;
}

/** One block of a result as MCP sends it. */
export function wireContent(c: Content): ContentBlock {
  const annotations = wireAnnotations(c.annotations);
  const ann = annotations ? { annotations } : {};
  switch (c.type) {
    case 'text':
      return { type: 'text', text: c.text ?? '', ...ann };
    case 'image':
    case 'audio':
      return { type: c.type, data: c.data ?? '', mimeType: c.mimeType || 'application/octet-stream', ...ann };
    case 'resource_link':
      return {
        type: 'resource_link',
        uri: c.uri ?? '',
        // MCP requires a name; Go leaves it empty when the server sent none.
        name: c.name || c.uri || '',
        ...(c.title ? { title: c.title } : {}),
        ...(c.description ? { description: c.description } : {}),
        ...(c.mimeType ? { mimeType: c.mimeType } : {}),
        ...(typeof c.size === 'number' ? { size: c.size } : {}),
        ...ann,
      };
    case 'resource': {
      const mime = c.mimeType ? { mimeType: c.mimeType } : {};
      const resource = c.blob !== undefined && c.blob !== '' ? { uri: c.uri ?? '', ...mime, blob: c.blob } : { uri: c.uri ?? '', ...mime, text: c.text ?? '' };
      return { type: 'resource', resource, ...ann };
    }
    default:
      // Go turns blocks it does not know into text; anything else is named.
      return { type: 'text', text: c.text ?? `[${c.type} content]` };
  }
}

/**
 * A tool's result as MCP's CallToolResult: `meta` becomes `_meta`,
 * embedded resources nest under `resource`, structured content is kept
 * only when it is an object (as MCP requires), and Switchboard's own fields
 * (structuredWarning, task) stay home.
 */
export function toCallToolResult(r: ToolResult | null | undefined): CallToolResult {
  const content = Array.isArray(r?.content) ? r.content.map(wireContent) : [];
  const out: CallToolResult = { content };
  if (r?.isError) out.isError = true;
  if (isRecord(r?.structuredContent)) out.structuredContent = r.structuredContent;
  if (isRecord(r?.meta)) out._meta = r.meta;
  return out;
}

/** The result a view gets when its call did not happen: the reason as text, marked an error. */
export function errorCallResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** A resource as MCP's ReadResourceResult: each part text, or base64 blob when binary. */
export function toReadResourceResult(r: { contents?: ResourcePart[] | null } | null | undefined): ReadResourceResult {
  const parts = Array.isArray(r?.contents) ? r.contents : [];
  return {
    contents: parts.map((p) => {
      const mime = p.mimeType ? { mimeType: p.mimeType } : {};
      return p.binary || (p.blob !== undefined && p.blob !== '') ? { uri: p.uri, ...mime, blob: p.blob ?? '' } : { uri: p.uri, ...mime, text: p.text ?? '' };
    }),
  };
}

/** A tool call's arguments (the JSON text the model wrote) as an object; {} when they are not one. */
export function parseArguments(json: string | undefined): Record<string, unknown> {
  if (!json) return {};
  try {
    const v: unknown = JSON.parse(json);
    return isRecord(v) ? v : {};
  } catch {
    return {};
  }
}
