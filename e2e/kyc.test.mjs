// The identity check (KYC) end to end in a real browser against a running server: an investor
// uploads documents, a staff member rejects one, the investor sends that one again, staff approve,
// and investing unlocks. Same environment as identity.test.mjs (E2E_BASE_URL, E2E_MAIL_DIR, the demo
// admin from E2E_ADMIN_EMAIL/E2E_ADMIN_PASSWORD or demo-logins.txt, CHROMIUM_PATH).
//
// The documents are made by the test: a JPEG drawn on a canvas by the browser itself and a
// one-page PDF written here, so the server's content detection sees real files.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { BASE_URL, url } from './browser.mjs';
import * as flows from './flows.mjs';
import { adminCredentials, button, expectAccessible, heading, linkIn, mailMark, register, signIn, toast, uniqueEmail, waitForMail, withSuiteBrowser } from './flows.mjs';

// A phone-sized screen for the investor, a desktop one for the reviewer.
const PHONE = { viewport: { width: 375, height: 812 }, hasTouch: true, isMobile: true };
const DESKTOP = { viewport: { width: 1280, height: 900 } };

// A valid one-page PDF with a filled rectangle in the given colour (r g b, 0 to 1), with a
// correct cross-reference table.
function tinyPdf(colour = '0.2 0.4 0.8') {
  const content = `${colour} rg 20 20 160 80 re f`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 120] /Contents 4 0 R /Resources << >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
  let out = '%PDF-1.4\n';
  const offsets = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

// A small JPEG, encoded by the browser from a canvas.
async function tinyJpeg(page) {
  const dataUrl = await page.evaluate(() => {
    const canvas = document.createElement('canvas');
    canvas.width = 120;
    canvas.height = 80;
    const g = canvas.getContext('2d');
    g.fillStyle = '#2c5f9e';
    g.fillRect(0, 0, 120, 80);
    g.fillStyle = '#f4d35e';
    g.fillRect(10, 10, 40, 50);
    return canvas.toDataURL('image/jpeg', 0.9);
  });
  return Buffer.from(dataUrl.split(',')[1], 'base64');
}

// Where the document of a viewer sits in its stage's scroll area: its box as drawn (rotated), in
// the stage's scroll coordinates, its size before rotation, and the stage's sizes.
function documentFit(viewer) {
  return viewer.evaluate((section) => {
    const stage = section.querySelector('.doc-viewer__stage');
    const turn = section.querySelector('.doc-viewer__turn');
    const s = stage.getBoundingClientRect();
    const r = turn.getBoundingClientRect();
    const left = r.left - s.left - stage.clientLeft + stage.scrollLeft;
    const top = r.top - s.top - stage.clientTop + stage.scrollTop;
    const pad = parseFloat(getComputedStyle(stage).paddingLeft);
    return {
      left,
      top,
      right: left + r.width,
      bottom: top + r.height,
      width: r.width,
      height: r.height,
      laidOut: { width: turn.offsetWidth, height: turn.offsetHeight },
      scroll: { width: stage.scrollWidth, height: stage.scrollHeight },
      client: { width: stage.clientWidth, height: stage.clientHeight },
      pad,
    };
  });
}

// After a quarter turn the drawn box has the swapped size and lies wholly inside the stage's scroll
// area, so scrolling reaches every edge; one narrower than the stage is centred across it. Polls
// briefly, since the frame takes the new size from a ResizeObserver.
async function assertQuarterTurnFits(viewer, what) {
  let fit;
  const ok = (f) =>
    Math.abs(f.width - f.laidOut.height) <= 1 &&
    Math.abs(f.height - f.laidOut.width) <= 1 &&
    f.left >= -0.5 &&
    f.top >= -0.5 &&
    f.right <= f.scroll.width + 0.5 &&
    f.bottom <= f.scroll.height + 0.5 &&
    (f.width > f.client.width - 2 * f.pad - 1 || Math.abs(f.left - (f.client.width - f.right)) <= 1);
  for (const start = Date.now(); Date.now() - start < 3000; await new Promise((resolve) => setTimeout(resolve, 100))) {
    fit = await documentFit(viewer);
    if (ok(fit)) return;
  }
  assert.fail(`${what}: the quarter-turned document does not fit its stage's scroll area: ${JSON.stringify(fit)}`);
}

describe(`identity check against ${BASE_URL}`, () => {
  const suite = withSuiteBrowser();

  const openSession = (contextOptions) => flows.freshBrowser(suite.browser, contextOptions);

  async function uploadPage(page) {
    await page.goto(url('/upload-kyc'));
    await heading(page, 'Identity Check').waitFor();
  }

  // Opens the case of `email` from the queue, as a reviewer does.
  async function openCase(page, email) {
    await page.goto(url('/pending-kyc'));
    await heading(page, 'Identity Check Queue').waitFor();
    const item = page.getByTestId('kyc-queue-item').filter({ hasText: email });
    await item.waitFor();
    await item.getByText(/^waiting /).waitFor();
    await expectAccessible(page, '/pending-kyc');
    await item.getByRole('link').click();
    await heading(page, /^Identity check: /).waitFor();
  }

  it('uploads, is rejected for one side, re-uploads it, is approved, and may then invest', async () => {
    const admin = adminCredentials();
    const email = uniqueEmail('kyc');
    const investor = await openSession(PHONE);
    const staff = await openSession(DESKTOP);
    try {
      const { page } = investor;

      // Sign up and verify the e-mail from the real message.
      const mark = await mailMark();
      await register(page, { email, name: 'Kim Checked' });
      const probe = await page.request.get(url('/api/users/kyc'));
      assert.equal(probe.status(), 200, `GET /api/users/kyc answers ${probe.status()}`);
      const mail = await waitForMail(email, { mark, subject: /confirm|verif/i });
      await page.goto(linkIn(mail, '/verify/'));
      await page.getByRole('heading', { name: 'E-mail verified' }).waitFor();

      // Investing is locked until the identity check passes.
      await page.goto(url('/my-account'));
      await heading(page, 'Welcome, Kim').waitFor();
      await page.getByText(/Identity check: no documents yet/).waitFor();
      const gate = page.getByTestId('invest-gate');
      await gate.getByText('Please upload your identity documents before investing.').waitFor();
      const investAction = page.getByRole('region', { name: 'Move money' }).getByRole('link', { name: /^Invest/ });
      assert.equal(await investAction.count(), 0, 'investing is locked');
      await expectAccessible(page, '/my-account (identity check not submitted)');

      // Upload a JPEG front and a PDF back, with previews, on a phone-sized screen.
      await uploadPage(page);
      await page.getByRole('group', { name: 'Front of your document' }).waitFor();
      await expectAccessible(page, '/upload-kyc (not submitted)');
      await page.getByLabel('Choose a file for the front').setInputFiles({ name: 'front.jpg', mimeType: 'image/jpeg', buffer: await tinyJpeg(page) });
      await page.getByLabel('Choose a file for the back').setInputFiles({ name: 'back.pdf', mimeType: 'application/pdf', buffer: tinyPdf() });
      await page.getByRole('img', { name: 'Preview of the front' }).waitFor();
      await page.getByRole('img', { name: 'Preview of the back, first page' }).waitFor();
      await expectAccessible(page, '/upload-kyc (files chosen)');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `the upload page fits a 375 px screen (overflows by ${overflow} px)`);
      await button(page, 'Submit documents').click();
      await toast(page, 'KYC documents uploaded successfully!').waitFor();
      await page.getByRole('heading', { name: 'Your documents are under review' }).waitFor();
      await expectAccessible(page, '/upload-kyc (pending)');

      // Staff reject the back.
      await signIn(staff.page, admin.email, admin.password);
      await openCase(staff.page, email);
      await staff.page.getByRole('img', { name: 'Front of the document' }).waitFor();
      await staff.page.getByRole('img', { name: 'Back of the document, page 1' }).waitFor();
      // A quarter turn lays the (landscape) documents out sideways, scrollable to every edge, at
      // every zoom, on a desktop and on a phone.
      const front = staff.page.getByTestId('document-front');
      const back = staff.page.getByTestId('document-back');
      const press = (viewer, name) => viewer.getByRole('button', { name }).click();
      await press(front, 'Zoom in');
      await front.getByText('125%').waitFor();
      await press(front, 'Rotate 90°');
      await assertQuarterTurnFits(front, 'front at 125%');
      for (const zoom of ['150%', '200%', '300%']) {
        await press(front, 'Zoom in');
        await front.getByText(zoom).waitFor();
        await assertQuarterTurnFits(front, `front at ${zoom}`);
      }
      await press(back, 'Rotate 90°');
      await assertQuarterTurnFits(back, 'back (PDF) at 100%');
      await staff.page.setViewportSize(PHONE.viewport);
      await assertQuarterTurnFits(front, 'front at 300% on a phone');
      await press(front, 'Reset');
      await press(front, 'Rotate 90°');
      await assertQuarterTurnFits(front, 'front at 100% on a phone');
      for (let i = 0; i < 2; i++) await press(front, 'Zoom out');
      await front.getByText('50%').waitFor();
      await assertQuarterTurnFits(front, 'front at 50% on a phone');
      await assertQuarterTurnFits(back, 'back (PDF) at 100% on a phone');
      await staff.page.setViewportSize(DESKTOP.viewport);
      await press(front, 'Reset');
      await press(front, 'Zoom in');
      await front.getByText('125%').waitFor();
      await press(front, 'Rotate 90°');
      await expectAccessible(staff.page, '/pending-kyc/:id');
      await button(staff.page, 'Reject').click();
      const dialog = staff.page.getByRole('dialog', { name: /^Reject .*documents$/ });
      await dialog.waitFor();
      await expectAccessible(staff.page, 'reject dialog');
      await dialog.getByRole('checkbox', { name: 'Reject the back' }).check();
      await dialog.getByLabel('Reason for the back').selectOption({ label: 'Glare or reflections' });
      await dialog.getByLabel(/Comment for the user/).fill('Please take the photo away from the window.');
      await dialog.getByRole('button', { name: 'Reject documents' }).click();
      await heading(staff.page, 'Identity Check Queue').waitFor();
      assert.equal(await staff.page.getByTestId('kyc-queue-item').filter({ hasText: email }).count(), 0, 'the case left the queue');

      // The investor sees why, and sends only the back again.
      await page.goto(url('/my-account'));
      const notice = page.getByTestId('kyc-notice');
      await notice.getByText(/Glare or reflections hide part of the document/).waitFor();
      await notice.getByText('Please take the photo away from the window.').waitFor();
      await expectAccessible(page, '/my-account (rejected)');
      await notice.getByRole('link', { name: 'Upload new documents' }).click();
      await heading(page, 'Identity Check').waitFor();
      await page.getByRole('group', { name: 'Back of your document' }).waitFor();
      assert.equal(await page.getByRole('group', { name: 'Front of your document' }).count(), 0, 'only the rejected side is asked for');
      await expectAccessible(page, '/upload-kyc (rejected)');
      await page.getByLabel('Choose a file for the back').setInputFiles({ name: 'back-again.pdf', mimeType: 'application/pdf', buffer: tinyPdf('0.8 0.3 0.2') });
      await page.getByRole('img', { name: 'Preview of the back, first page' }).waitFor();
      await button(page, 'Submit document').click();
      await toast(page, 'KYC documents uploaded successfully!').waitFor();
      await page.getByRole('heading', { name: 'Your documents are under review' }).waitFor();

      // Staff approve the re-upload.
      await openCase(staff.page, email);
      await staff.page.getByText('re-upload').first().waitFor();
      await staff.page.getByTestId('kyc-submission').nth(1).getByText('Back: Glare or reflections').waitFor();
      await button(staff.page, 'Approve').click();
      const confirm = staff.page.getByRole('dialog', { name: /^Approve / });
      await confirm.getByRole('button', { name: 'Approve' }).click();
      await heading(staff.page, 'Identity Check Queue').waitFor();

      // Approved: no notice, and investing is open.
      await page.goto(url('/my-account'));
      await heading(page, 'Welcome, Kim').waitFor();
      await investAction.waitFor();
      assert.equal(await page.getByTestId('kyc-notice').count(), 0, 'no identity-check notice once approved');
      assert.equal(await page.getByTestId('invest-gate').count(), 0, 'investing is not locked');
      await expectAccessible(page, '/my-account (approved)');
      await uploadPage(page);
      await page.getByRole('heading', { name: 'Your identity is verified' }).waitFor();

      assert.deepEqual(investor.problems, [], 'no uncaught errors or CSP violations for the investor');
      assert.deepEqual(staff.problems, [], 'no uncaught errors or CSP violations for the reviewer');
    } finally {
      await investor.context.close();
      await staff.context.close();
    }
  });
});
