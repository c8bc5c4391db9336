// The files of a paste or a drop, for attaching them.

/** The files a drag carries (true while dragging files over, before the drop reveals them). */
export function dragHasFiles(e: DragEvent): boolean {
  return Array.from(e.dataTransfer?.types ?? []).includes('Files');
}

/** The files of a drop. */
export function droppedFiles(e: DragEvent): File[] {
  return Array.from(e.dataTransfer?.files ?? []);
}

/** The files of a paste (a screenshot, an image copied from a page, files copied in a file manager); [] for a paste of text. */
export function pastedFiles(e: ClipboardEvent): File[] {
  const data = e.clipboardData;
  if (!data) return [];
  const files = Array.from(data.files ?? []);
  if (files.length) return files;
  const out: File[] = [];
  for (const item of Array.from(data.items ?? [])) {
    if (item.kind !== 'file') continue;
    const f = item.getAsFile();
    if (f) out.push(f);
  }
  return out;
}
