// TasksStore mirrors the tasks servers run for tool calls (the MCP Tasks
// extension). The backend follows them and owns their state; this store
// loads the newest ones and applies every task:update, so a card and the
// Tasks tab show the same thing. The list is capped: past the cap the
// oldest finished tasks go first, a running one stays.
import { Events, errorMessage, type Backend, type Task, type TaskStatus, type Unsubscribe } from '../backend';

export const TASK_CAP = 200;

/** The Tasks tab's filter: the tasks still running (not ended), or every one. */
export type TaskFilter = 'running' | 'all';

/** True once a task reached a terminal status. */
export function taskEnded(t: Pick<Task, 'status'>): boolean {
  return t.status === 'completed' || t.status === 'failed' || t.status === 'cancelled';
}

/** What each status is called in the UI: the same word wherever a task shows. */
export const TASK_STATUS_TEXT: Record<TaskStatus, string> = {
  working: 'working',
  input_required: 'waiting for input',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

const newestFirst = (a: Task, b: Task) => Date.parse(b.createdAt) - Date.parse(a.createdAt);

export class TasksStore {
  #backend: Backend;
  #cap: number;
  #unsubs: Unsubscribe[] = [];
  #tasks = $state.raw<Task[]>([]);
  #loaded = $state(false);
  #error = $state('');
  #filter = $state<TaskFilter>('all');
  /** Tasks being cancelled now, by id. */
  #cancelling = $state<Record<string, boolean>>({});
  /** The last failed cancel of a task, by id. */
  #errors = $state<Record<string, string>>({});

  #active = $derived(this.#tasks.filter((t) => !taskEnded(t)));
  #byToolCall = $derived(new Map(this.#tasks.filter((t) => t.toolCallId).map((t) => [t.toolCallId, t])));

  constructor(backend: Backend, opts: { cap?: number } = {}) {
    this.#backend = backend;
    this.#cap = opts.cap ?? TASK_CAP;
  }

  /** Every known task, newest first. */
  get tasks(): Task[] {
    return this.#tasks;
  }
  /** The tasks still running (working or waiting for input), newest first. */
  get active(): Task[] {
    return this.#active;
  }
  /** What the Tasks tab lists under its filter. */
  get visible(): Task[] {
    return this.#filter === 'running' ? this.#active : this.#tasks;
  }
  get filter(): TaskFilter {
    return this.#filter;
  }
  get loaded(): boolean {
    return this.#loaded;
  }
  get error(): string {
    return this.#error;
  }
  cancelling(id: string): boolean {
    return this.#cancelling[id] ?? false;
  }
  cancelError(id: string): string {
    return this.#errors[id] ?? '';
  }

  /** The task that answers a tool call (its audit record ID), if any. */
  byToolCall(toolCallId: string | undefined): Task | undefined {
    return toolCallId ? this.#byToolCall.get(toolCallId) : undefined;
  }

  start(): void {
    if (this.#unsubs.length) return;
    this.#unsubs = [this.#backend.on(Events.taskUpdate, (t) => this.#merge([t]))];
  }

  dispose(): void {
    for (const u of this.#unsubs) u();
    this.#unsubs = [];
  }

  /** Loads the newest tasks of every conversation, finished or not. */
  async load(): Promise<void> {
    try {
      this.#merge(await this.#backend.listTasks('', false));
      this.#error = '';
    } catch (e) {
      this.#error = `Could not load the tasks: ${errorMessage(e)}`;
    } finally {
      this.#loaded = true;
    }
  }

  setFilter(f: TaskFilter): void {
    this.#filter = f;
  }

  /** Asks the backend to cancel a task; the task:update that follows shows it cancelled. */
  async cancel(id: string): Promise<void> {
    if (this.#cancelling[id]) return;
    this.#cancelling[id] = true;
    delete this.#errors[id];
    try {
      await this.#backend.cancelTask(id);
    } catch (e) {
      this.#errors[id] = `Could not cancel the task: ${errorMessage(e)}`;
    } finally {
      delete this.#cancelling[id];
    }
  }

  /**
   * Inserts or replaces tasks by id. A load and the events overlap, and
   * events may pass each other: the copy updated last wins.
   */
  #merge(list: Task[]): void {
    const by = new Map(this.#tasks.map((t) => [t.id, t]));
    for (const t of list) {
      const old = by.get(t.id);
      if (!old || Date.parse(t.updatedAt) >= Date.parse(old.updatedAt)) by.set(t.id, t);
    }
    const all = [...by.values()].sort(newestFirst);
    this.#tasks = capped(all, this.#cap);
  }
}

/** At most cap tasks: the oldest finished ones are dropped first. */
function capped(newestFirst: Task[], cap: number): Task[] {
  let over = newestFirst.length - cap;
  if (over <= 0) return newestFirst;
  const keep: Task[] = [];
  for (let i = newestFirst.length - 1; i >= 0; i--) {
    const t = newestFirst[i];
    if (over > 0 && taskEnded(t)) over--;
    else keep.push(t);
  }
  return keep.reverse();
}
