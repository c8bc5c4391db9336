import { defineConfig, type Plugin } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// KaTeX's stylesheet offers each font as woff2, woff and ttf; the app's
// webviews (WebKitGTK, WebView2, WKWebView) and Chromium all read woff2, so
// the other two are left out of the build (about 1 MB of the binary).
const katexWoff2Only: Plugin = {
  name: 'katex-woff2-only',
  enforce: 'pre',
  transform(code, id) {
    if (!/katex(\.min)?\.css$/.test(id.split('?')[0])) return;
    return code.replace(/,\s*url\([^)]*\.woff\)\s*format\("woff"\)/g, '').replace(/,\s*url\([^)]*\.ttf\)\s*format\("truetype"\)/g, '');
  },
};

export default defineConfig({
  plugins: [katexWoff2Only, svelte()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Wails serves the files from the binary: no source maps. The code
    // highlighter is a chunk of its own, loaded when code first shows.
    sourcemap: false,
    chunkSizeWarningLimit: 2048,
  },
  test: {
    environment: 'happy-dom',
    include: ['src/**/*.test.ts'],
    setupFiles: ['./vitest.setup.ts'],
  },
  resolve: process.env.VITEST ? { conditions: ['browser'] } : undefined,
});
