// Attachments in the browser: an image by the file picker, another by
// paste, a text file by drop; the fake provider echoes each image part it
// got ("[image image/png, N bytes]"), so the reply shows the model saw
// them. An image over the limit is refused with a message, in the page
// and by Go.
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { WAIT, bound, ensureProvider, setTheme, turnDone, until, waitText } from './helpers.mjs';

/** A width x height PNG of a colour gradient with a disc, made here (no image files in the repo). */
export function gradientPNG(width, height, seed = 0) {
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0;
    for (let x = 0; x < width; x++) {
      const o = y * (width * 4 + 1) + 1 + x * 4;
      const d = Math.hypot(x - width / 2, y - height / 2) < Math.min(width, height) / 3;
      raw[o] = d ? 250 : (x * 255) / width;
      raw[o + 1] = d ? 200 - seed * 120 : (y * 255) / height;
      raw[o + 2] = d ? 40 + seed * 180 : 180;
      raw[o + 3] = 255;
    }
  }
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'binary'), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

export function register({ test, withPage, shot, fake }) {
  test('attachments: an image by the picker, one by paste and a text file by drop reach the model; an oversized image is refused', async () => {
    await withPage(async (page) => {
      await ensureProvider(page, fake.url);
      await page.getByTestId('new-chat').click();
      const chips = page.locator('[data-testid=pending-attachments] [data-testid=attachment-chip]');

      // The paperclip's file picker.
      const picked = gradientPNG(160, 120, 0);
      await page.getByTestId('attach-input').setInputFiles({ name: 'sunset.png', mimeType: 'image/png', buffer: picked });
      await until(async () => (await chips.count()) === 1, 'the picked image as a chip');
      await page.locator('[data-testid=pending-attachments] [data-testid=attachment-thumb]').first().waitFor({ timeout: WAIT });

      // A pasted screenshot.
      const pasted = gradientPNG(120, 90, 1);
      await page.evaluate((b64) => {
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], 'screenshot.png', { type: 'image/png' }));
        const box = document.querySelector('[data-testid=composer-input]');
        box.focus();
        box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
      }, pasted.toString('base64'));
      await until(async () => (await chips.count()) === 2, 'the pasted image as a second chip');

      // A text file dropped on the chat.
      await page.evaluate(() => {
        const dt = new DataTransfer();
        dt.items.add(new File(['# Shopping\n- milk\n- eggs\n'], 'notes.md', { type: 'text/markdown' }));
        const main = document.querySelector('[data-testid=chat-main]');
        for (const type of ['dragenter', 'dragover', 'drop']) main.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
      });
      await until(async () => (await chips.count()) === 3, 'the dropped file as a third chip');
      assert.deepEqual(await chips.evaluateAll((cs) => cs.map((c) => [c.dataset.name, c.dataset.kind])), [
        ['sunset.png', 'image'],
        ['screenshot.png', 'image'],
        ['notes.md', 'text'],
      ]);
      await page.getByTestId('composer-input').fill('What do you see in these pictures?');
      await page.mouse.move(0, 0);
      await shot(page, 'attachments-composer');

      await page.getByTestId('composer-input').press('Enter');
      const reply = await turnDone(page);
      const said = await reply.getByTestId('message-text').textContent();
      // The provider got both images as image parts, and the text file inlined.
      assert.ok(said.includes(`[image image/png, ${picked.length} bytes] [image image/png, ${pasted.length} bytes]`), `reply: ${said}`);
      assert.ok(said.includes('<attachment name="notes.md" type="text/markdown">') && said.includes('eggs'), `reply: ${said}`);
      assert.equal(await chips.count(), 0, 'the chips are cleared once sent');
      const user = page.locator('[data-testid=message][data-role=user]').last();
      await until(async () => (await user.getByTestId('attachment-thumb').count()) === 2, 'two thumbnails on the sent message');
      assert.equal(await user.locator('[data-testid=attachment-chip][data-kind=text]').getAttribute('data-name'), 'notes.md');
      await page.mouse.move(0, 0);
      await shot(page, 'attachments-sent');
      await setTheme(page, 'dark');
      await page.mouse.move(0, 0);
      await shot(page, 'attachments-sent-dark');
      await setTheme(page, 'system');

      // Stored with the message: after a reload the thumbnails come back.
      await page.reload();
      const conv = page.getByTestId('conversation').filter({ hasText: 'What do you see in these pictures' });
      await conv.first().waitFor({ timeout: WAIT });
      await conv.first().getByRole('button').first().click();
      const again = page.locator('[data-testid=message][data-role=user]').last();
      await until(async () => (await again.getByTestId('attachment-thumb').count()) === 2, 'the thumbnails after a reload');

      // An image over 5 MiB: refused in the page, before it is read, with the limit; the text stays.
      await page.getByTestId('composer-input').fill('and this one?');
      const huge = Buffer.concat([gradientPNG(8, 8), Buffer.alloc(6 << 20)]);
      await page.getByTestId('attach-input').setInputFiles({ name: 'huge.png', mimeType: 'image/png', buffer: huge });
      const err = page.getByTestId('attachment-error');
      await waitText(err, /huge\.png \(6 MiB\) is over 5 MiB, the most an image can be/);
      assert.equal(await page.getByTestId('composer-input').inputValue(), 'and this one?');
      assert.equal(await chips.count(), 0);
      await shot(page, 'attachments-refused');

      // Go refuses it too, whatever the page checked.
      const goErr = await bound(page, 'AddAttachment', 'huge.png', 'image/png', huge.toString('base64')).then(() => '', (e) => String(e));
      assert.match(goErr, /too large to attach: the image huge\.png \(6 MiB\) is over 5 MiB/);
    });
  });
}
