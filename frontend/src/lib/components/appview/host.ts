// What a view is told of its host (McpUiHostContext), and how the card
// fills the chat when maximized.
import type { McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { Tool } from '../../backend';
import { MAX_HEIGHT } from './limits';

/** The app's theme as shown now (settings resolve "system" into data-theme). */
export function currentTheme(): 'light' | 'dark' {
  return document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light';
}

/**
 * The host context of a view: the app's theme, a desktop platform, the
 * display mode (inline, or fullscreen when maximized), the room it has (its
 * width; inline up to MAX_HEIGHT high, maximized the height it fills), and
 * the tool (MCP's Tool shape: the server's name, its cleaned input schema,
 * its view).
 */
export function hostContext(o: { theme: 'light' | 'dark'; width: number; height?: number; maximized: boolean; tool: Tool }): McpUiHostContext {
  const width = Math.max(0, Math.round(o.width));
  const t = o.tool;
  const schema = (t.inputSchema && typeof t.inputSchema === 'object' ? t.inputSchema : { type: 'object' }) as { type: 'object'; [k: string]: unknown };
  return {
    theme: o.theme,
    platform: 'desktop',
    displayMode: o.maximized ? 'fullscreen' : 'inline',
    availableDisplayModes: ['inline', 'fullscreen'],
    containerDimensions: o.maximized && o.height ? { width, height: Math.round(o.height) } : { width, maxHeight: MAX_HEIGHT },
    locale: navigator.language,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    userAgent: 'Switchboard',
    deviceCapabilities: { hover: true, touch: false },
    toolInfo: {
      tool: {
        name: t.originalName,
        ...(t.title ? { title: t.title } : {}),
        ...(t.description ? { description: t.description } : {}),
        inputSchema: { ...schema, type: 'object' },
        ...(t.ui ? { _meta: { ui: { resourceUri: t.ui.resourceUri, ...(t.visibility ? { visibility: t.visibility } : {}) } } } : {}),
      },
    },
  };
}

/**
 * Places el (position: fixed) over target's box. It measures where a fixed
 * box lands first: inside a transformed ancestor (the message list's
 * window) fixed is relative to that ancestor, not to the page.
 */
export function fitFixed(el: HTMLElement, target: HTMLElement): void {
  el.style.position = 'fixed';
  el.style.left = '0px';
  el.style.top = '0px';
  const o = el.getBoundingClientRect();
  const t = target.getBoundingClientRect();
  el.style.left = `${t.left - o.left}px`;
  el.style.top = `${t.top - o.top}px`;
  el.style.width = `${t.width}px`;
  el.style.height = `${t.height}px`;
}
