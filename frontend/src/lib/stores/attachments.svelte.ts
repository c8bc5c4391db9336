// AttachmentsStore holds the attachments of the message being written:
// files picked, pasted or dropped (read here, checked and stored by Go),
// and resources added by the Tools panel. Sending passes `pending` and
// clears it. It also caches the data URLs that show attachments
// (thumbnails), for the composer and the messages alike.
import { errorMessage, type Attachment, type Backend } from '../backend';

/** How many attachments one message may have (Go's chat.MaxAttachments). */
export const MAX_ATTACHMENTS = 10;
/** The largest file read at all (Go's core.MaxAttachmentBytes); a larger one is refused unread. */
export const MAX_FILE_BYTES = 32 << 20;
/** The largest image (Go's core.MaxImageBytes); checked here too, so a large photo is refused unread. */
export const MAX_IMAGE_BYTES = 5 << 20;
/** How many data URLs are kept for showing. */
const MAX_CACHED = 64;

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** A size as a person reads it: "512 bytes", "200 KiB", "5.2 MiB" (as Go's core.FormatBytes). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  const [v, unit] = n < 1 << 20 ? [n / 1024, 'KiB'] : [n / (1 << 20), 'MiB'];
  return `${v.toFixed(1).replace(/\.0$/, '')} ${unit}`;
}

/** The bytes of a file as base64, without building one huge string of bytes first. */
export async function fileBase64(file: Blob): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += 0x8000) {
    parts.push(String.fromCharCode(...bytes.subarray(i, i + 0x8000)));
  }
  return btoa(parts.join(''));
}

export class AttachmentsStore {
  #backend: Backend;
  #pending = $state<Attachment[]>([]);
  #reading = $state(0);
  #errors = $state<string[]>([]);
  #urls = new Map<string, Promise<string>>();

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  /** The attachments of the message being written, in the order added. */
  get pending(): Attachment[] {
    return this.#pending;
  }
  /** True while files are being read and stored. */
  get busy(): boolean {
    return this.#reading > 0;
  }
  /** Why files were refused, one line each, until the next add or dismiss. */
  get errors(): string[] {
    return this.#errors;
  }
  get full(): boolean {
    return this.#pending.length >= MAX_ATTACHMENTS;
  }

  /** Adds a stored attachment (from addAttachment, or a resource); false when the message has no room for it. The same one twice is kept once. */
  add(a: Attachment): boolean {
    if (this.#pending.some((p) => p.id === a.id && p.name === a.name)) return true;
    if (this.full) {
      this.#errors = [...this.#errors, `${a.name}: a message can have at most ${MAX_ATTACHMENTS} attachments`];
      return false;
    }
    this.#pending = [...this.#pending, a];
    return true;
  }

  remove(id: string): void {
    this.#pending = this.#pending.filter((a) => a.id !== id);
  }

  /** Empties the list (after a send). */
  clear(): void {
    this.#pending = [];
    this.#errors = [];
  }

  dismissErrors(): void {
    this.#errors = [];
  }

  /**
   * Reads files (picked, pasted or dropped) and has Go check and store
   * each; a refused one is said in errors, the others are added. A file
   * over the limits is refused without being read.
   */
  async addFiles(files: File[]): Promise<void> {
    this.#errors = [];
    const errors: string[] = [];
    const room = MAX_ATTACHMENTS - this.#pending.length;
    if (files.length > room) {
      errors.push(`A message can have at most ${MAX_ATTACHMENTS} attachments; ${files.length - Math.max(room, 0)} file${files.length - room === 1 ? ' was' : 's were'} left out.`);
      files = files.slice(0, Math.max(room, 0));
    }
    this.#reading++;
    try {
      for (const f of files) {
        const name = f.name || defaultName(f.type);
        if (f.size > MAX_FILE_BYTES) {
          errors.push(`${name} (${formatBytes(f.size)}) is over ${formatBytes(MAX_FILE_BYTES)}, the most a file can be.`);
          continue;
        }
        if (IMAGE_TYPES.includes(f.type) && f.size > MAX_IMAGE_BYTES) {
          errors.push(`The image ${name} (${formatBytes(f.size)}) is over ${formatBytes(MAX_IMAGE_BYTES)}, the most an image can be (providers refuse larger ones). Shrink it and attach it again.`);
          continue;
        }
        try {
          const a = await this.#backend.addAttachment(name, f.type, await fileBase64(f));
          if (!this.add(a)) break;
        } catch (e) {
          errors.push(sentence(errorMessage(e)));
        }
      }
    } finally {
      this.#reading--;
      this.#errors = [...this.#errors, ...errors];
    }
  }

  /** An attachment as a data: URL to show (cached); rejects when it cannot be read. */
  dataURL(id: string): Promise<string> {
    let p = this.#urls.get(id);
    if (!p) {
      p = this.#backend.attachmentData(id);
      p.catch(() => this.#urls.delete(id));
      this.#urls.set(id, p);
      if (this.#urls.size > MAX_CACHED) this.#urls.delete(this.#urls.keys().next().value!);
    }
    return p;
  }
}

/** A name for a pasted file that has none. */
function defaultName(type: string): string {
  if (type.startsWith('image/')) return `pasted image.${type.slice(6).replace('jpeg', 'jpg')}`;
  return 'pasted file.txt';
}

/** Go's error as a sentence: capital first, a full stop last. */
function sentence(s: string): string {
  s = s.charAt(0).toUpperCase() + s.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}
