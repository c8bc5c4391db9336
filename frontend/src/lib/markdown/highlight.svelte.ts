// The code highlighter (highlight.js with its common languages) is half of
// the app's script, and most conversations never show code. It is loaded on
// first use: code rendered before it arrives is shown as plain text, and
// `highlighter.version` changes once it is ready, so rendered markdown is
// rendered again with colours.
import type { HLJSApi } from 'highlight.js';

let hljs: HLJSApi | undefined;
let loading: Promise<void> | undefined;

/** Reactive: version goes from 0 to 1 when the highlighter has loaded. */
export const highlighter = $state({ version: 0, failed: false });

/** Loads the highlighter once; later calls return the same promise. */
export function loadHighlighter(): Promise<void> {
  loading ??= import('highlight.js/lib/common').then(
    (m) => {
      hljs = m.default;
      highlighter.version++;
    },
    () => {
      highlighter.failed = true; // code stays plain text; nothing else depends on it
    },
  );
  return loading;
}

/**
 * Highlights code as HTML if the highlighter is loaded and knows lang;
 * otherwise returns undefined (and starts loading it when lang is set).
 */
export function highlightCode(code: string, lang: string): string | undefined {
  if (!lang) return undefined;
  if (!hljs) {
    void loadHighlighter();
    return undefined;
  }
  if (!hljs.getLanguage(lang)) return undefined;
  try {
    return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
  } catch {
    return undefined;
  }
}
