import type { PDFDocumentProxy } from 'pdfjs-dist';

type PdfJs = typeof import('pdfjs-dist');

// pdf.js is large, so it is fetched only when a PDF is shown, never with the page. Its worker is
// a file of its own that Vite copies into the build (`?url`), served from our origin as the
// Content-Security-Policy requires.
let loading: Promise<PdfJs> | undefined;

export function loadPdfJs(): Promise<PdfJs> {
  loading ??= Promise.all([import('pdfjs-dist'), import('pdfjs-dist/build/pdf.worker.min.mjs?url')]).then(
    ([lib, worker]) => {
      lib.GlobalWorkerOptions.workerSrc = worker.default;
      return lib;
    },
    (error: unknown) => {
      // A failed chunk load may succeed next time (a flaky connection): do not keep the failure.
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

export type PdfDocument = PDFDocumentProxy;

export async function openPdf(data: ArrayBuffer): Promise<PdfDocument> {
  const lib = await loadPdfJs();
  // No eval: the page's Content-Security-Policy forbids it, and probing for it would log a
  // violation.
  return lib.getDocument({ data: new Uint8Array(data), isEvalSupported: false }).promise;
}

// Draws one page (from 1) to fit `width` CSS pixels, sharp on high-density screens. pdf.js
// refuses two renders into one canvas at once, so a caller cancels the previous one first.
export function renderPage(doc: PdfDocument, pageNumber: number, canvas: HTMLCanvasElement, width: number) {
  let cancelled = false;
  let task: { cancel(): void } | undefined;
  const promise = doc.getPage(pageNumber).then(async (page) => {
    if (cancelled) return;
    const base = page.getViewport({ scale: 1 });
    const ratio = window.devicePixelRatio || 1;
    const viewport = page.getViewport({ scale: (width / base.width) * ratio });
    canvas.width = Math.floor(viewport.width);
    canvas.height = Math.floor(viewport.height);
    const render = page.render({ canvas, viewport });
    task = render;
    await render.promise;
  });
  return {
    promise,
    cancel() {
      cancelled = true;
      task?.cancel();
    },
  };
}
