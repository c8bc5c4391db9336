import { mount } from 'svelte';
import App from './App.svelte';
import './app.css';
import { wails } from './lib/backend';

const app = mount(App, { target: document.getElementById('app')!, props: { backend: wails } });

export default app;
