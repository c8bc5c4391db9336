// KeyboardStore is the state of the keyboard layer: whether the command
// palette or the shortcuts list is open, and a short status line ("Copied
// the last reply") read out to screen readers.

export class KeyboardStore {
  #palette = $state(false);
  #help = $state(false);
  #status = $state('');
  #timer: ReturnType<typeof setTimeout> | undefined;

  get palette(): boolean {
    return this.#palette;
  }
  get help(): boolean {
    return this.#help;
  }
  get status(): string {
    return this.#status;
  }

  openPalette(): void {
    this.#help = false;
    this.#palette = true;
  }
  closePalette(): void {
    this.#palette = false;
  }
  openHelp(): void {
    this.#palette = false;
    this.#help = true;
  }
  closeHelp(): void {
    this.#help = false;
  }

  /** Shows a status for ms milliseconds. */
  say(text: string, ms = 2500): void {
    this.#status = text;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => (this.#status = ''), ms);
  }

  dispose(): void {
    clearTimeout(this.#timer);
  }
}
