import { mount } from 'svelte';
import App from './App.svelte';
import './app.css';
import { hasWails, wails, type Backend } from './lib/backend';
import { applyTheme } from './lib/stores/settings.svelte';

// Follow the OS theme until the saved setting is loaded: no flash.
applyTheme('system');

async function backend(): Promise<Backend> {
  // `npm run dev` in a plain browser: sample data instead of Go.
  if (import.meta.env.DEV && !hasWails() && new URLSearchParams(location.search).has('demo')) {
    const { demoBackend } = await import('./lib/backend/demo');
    return demoBackend({ empty: new URLSearchParams(location.search).get('demo') === 'empty' });
  }
  return wails;
}

const app = backend().then((b) => mount(App, { target: document.getElementById('app')!, props: { backend: b } }));

export default app;
