// How a task reads, in its card line and its row of the Tasks tab.
import type { Task } from '../../backend';
import { TASK_STATUS_TEXT, taskEnded } from '../../stores/tasks.svelte';

/** A duration for people: "0.4 s", "12 s", "3 min 05 s", "2 h 10 min". */
export function duration(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 10) return `${s.toFixed(1)} s`;
  if (s < 60) return `${Math.floor(s)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(Math.floor(s % 60)).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** How long a task ran: until it ended, or until now while it runs. */
export function taskDuration(t: Task, now: number): number {
  const end = taskEnded(t) ? Date.parse(t.endedAt || t.updatedAt) : now;
  return Math.max(0, end - Date.parse(t.createdAt));
}

/**
 * A task's status in words, with what the server or the backend said. A
 * task that ended says only how (its last message was about its work).
 */
export function taskLine(t: Task, now: number): string {
  const status = TASK_STATUS_TEXT[t.status] ?? t.status;
  if (t.status === 'failed') return `Task failed${t.error || t.statusMessage ? `: ${t.error || t.statusMessage}` : ''}`;
  if (taskEnded(t)) return `Task ${status}`;
  return `Task ${status} · ${duration(taskDuration(t, now))}${t.statusMessage ? ` · ${t.statusMessage}` : ''}`;
}
