// The Save of a server form (an MCP server, a server of command tools): the
// form's own problems first, then the backend's; after a first Save the
// form is checked again as the user fixes fields.
import { errorMessage, type FieldError, type ServerConfig } from '../../backend';

/** What a form reads as now: the config it would save and its own problems (JSON it cannot parse, say). */
export type FormRead = () => { config: ServerConfig; errors: FieldError[] };

/** The part of the servers store a form saves through. */
export interface FormServers {
  validate(cfg: ServerConfig): Promise<FieldError[]>;
  /** Validates, then saves; the errors when it did not save. */
  save(cfg: ServerConfig): Promise<FieldError[]>;
}

/**
 * A FormSave holds a server form's problems and its Save. Create it while the
 * component initialises: it starts an effect that re-checks the form 300 ms
 * after each change once Save was pressed.
 */
export class FormSave {
  /** Every problem, the form's own first; each field at most once. */
  errors = $state<FieldError[]>([]);
  /** Why Save did not reach the backend; '' when it did. */
  failure = $state('');
  saving = $state(false);
  /** The message of each field's problem, by field name. */
  readonly byField = $derived(Object.fromEntries(this.errors.map((e) => [e.field, e.message])));

  #tried = $state(false);
  #read: FormRead;
  #servers: FormServers;
  #onsaved: () => void;

  constructor(read: FormRead, servers: FormServers, onsaved: () => void) {
    this.#read = read;
    this.#servers = servers;
    this.#onsaved = onsaved;
    $effect(() => {
      const now = this.#read(); // reads every field, so any change runs this again
      if (!this.#tried) return;
      const timer = setTimeout(async () => {
        try {
          this.errors = await this.#check(now);
        } catch {
          // the next Save says what is wrong
        }
      }, 300);
      return () => clearTimeout(timer);
    });
  }

  /** The problems the backend should show with the ones the form found itself, each field once. */
  async #check({ config, errors: local }: ReturnType<FormRead>): Promise<FieldError[]> {
    const remote = await this.#servers.validate(config);
    const mine = new Set(local.map((e) => e.field));
    return [...local, ...remote.filter((e) => !mine.has(e.field))];
  }

  /** Saves when the form and the backend find no problem, then calls onsaved. */
  async save() {
    this.#tried = true;
    this.saving = true;
    this.failure = '';
    try {
      const now = this.#read();
      if (now.errors.length) {
        this.errors = await this.#check(now);
        return;
      }
      this.errors = await this.#servers.save(now.config);
      if (this.errors.length === 0) this.#onsaved();
    } catch (e) {
      this.failure = errorMessage(e);
    } finally {
      this.saving = false;
    }
  }
}
