// ProvidersStore holds the presets and the configured model providers, and
// the model list of each provider as far as it was fetched.
import { errorMessage, type Backend, type LocalServer, type Preset, type ProviderInput, type ProviderView, type TestResult } from '../backend';

export interface ModelList {
  models: string[];
  loading: boolean;
  error: string;
}

export class ProvidersStore {
  #backend: Backend;
  #presets = $state<Preset[]>([]);
  #providers = $state<ProviderView[]>([]);
  #loaded = $state(false);
  #error = $state('');
  #models = $state<Record<string, ModelList>>({});

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  get presets(): Preset[] {
    return this.#presets;
  }
  get providers(): ProviderView[] {
    return this.#providers;
  }
  get loaded(): boolean {
    return this.#loaded;
  }
  get error(): string {
    return this.#error;
  }

  preset(id: string): Preset | undefined {
    return this.#presets.find((p) => p.id === id);
  }
  /**
   * The provider with this id; '' means the default one (as the backend
   * resolves it: the default provider setting, else the first).
   */
  provider(id: string, defaultId = ''): ProviderView | undefined {
    if (id === '') {
      return this.#providers.find((p) => p.id === defaultId) ?? this.#providers[0];
    }
    return this.#providers.find((p) => p.id === id);
  }
  models(providerId: string): ModelList {
    return this.#models[providerId] ?? { models: [], loading: false, error: '' };
  }

  async load(): Promise<void> {
    const [presets, providers] = await Promise.allSettled([this.#backend.listPresets(), this.#backend.listProviders()]);
    if (presets.status === 'fulfilled') this.#presets = presets.value;
    if (providers.status === 'fulfilled') {
      this.#providers = providers.value;
      this.#error = '';
    } else {
      this.#error = `Could not load the providers: ${errorMessage(providers.reason)}`;
    }
    this.#loaded = true;
  }

  /** Saves a provider and returns it as stored; throws with the backend's message. */
  async save(input: ProviderInput): Promise<ProviderView> {
    const view = await this.#backend.saveProvider(input);
    const i = this.#providers.findIndex((p) => p.id === view.id);
    if (i >= 0) this.#providers[i] = view;
    else this.#providers.push(view);
    delete this.#models[view.id];
    return view;
  }

  async remove(id: string): Promise<void> {
    await this.#backend.deleteProvider(id);
    this.#providers = this.#providers.filter((p) => p.id !== id);
  }

  /** Tests a saved provider; a failure to call comes back as a failed result. */
  async test(id: string): Promise<TestResult> {
    try {
      const r = await this.#backend.testProvider(id);
      if (r.ok && r.models?.length) this.#models[id] = { models: r.models, loading: false, error: '' };
      return r;
    } catch (e) {
      return { ok: false, message: errorMessage(e), models: [] };
    }
  }

  /** Fetches a provider's models once (again with force). */
  async loadModels(providerId: string, force = false): Promise<void> {
    const cur = this.#models[providerId];
    if (cur && (cur.loading || (!force && !cur.error))) return;
    this.#models[providerId] = { models: cur?.models ?? [], loading: true, error: '' };
    try {
      const models = await this.#backend.listModels(providerId);
      this.#models[providerId] = { models, loading: false, error: '' };
    } catch (e) {
      this.#models[providerId] = { models: cur?.models ?? [], loading: false, error: errorMessage(e) };
    }
  }

  detectLocal(): Promise<LocalServer[]> {
    return this.#backend.detectLocal();
  }
}
