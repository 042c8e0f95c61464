import { useEffect, useRef, useState } from 'react';
import { useTranslation } from '../../i18n';
import { openPdf, renderPage, type PdfDocument } from './pdf';

interface PdfCanvasProps {
  // Reads the PDF's bytes; called again when it changes identity (memoise it).
  load: () => Promise<ArrayBuffer>;
  // 1-based page to draw.
  page?: number;
  // Width in CSS pixels the page is drawn for (it scales down with its container).
  width?: number;
  label: string;
  onPageCount?: (pages: number) => void;
}

// One page of a PDF drawn onto a canvas with pdf.js (loaded on first use). While it loads or if
// it cannot be read, it says so in words. State is tagged with what it is about (the loader, the
// drawn page), so a new file or page reads as loading without resetting state in an effect.
export function PdfCanvas({ load, page = 1, width = 480, label, onPageCount }: PdfCanvasProps) {
  const { t } = useTranslation('kyc');
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [opened, setOpened] = useState<{ load: PdfCanvasProps['load']; doc: PdfDocument | null } | null>(null);
  const [drawn, setDrawn] = useState<{ doc: PdfDocument; page: number; width: number; ok: boolean } | null>(null);
  const onPageCountRef = useRef(onPageCount);
  useEffect(() => {
    onPageCountRef.current = onPageCount;
  });

  useEffect(() => {
    let cancelled = false;
    let doc: PdfDocument | null = null;
    load()
      .then(openPdf)
      .then((pdf) => {
        doc = pdf;
        if (cancelled) return void pdf.destroy();
        setOpened({ load, doc: pdf });
        onPageCountRef.current?.(pdf.numPages);
      })
      .catch(() => {
        if (!cancelled) setOpened({ load, doc: null });
      });
    return () => {
      cancelled = true;
      void doc?.destroy();
    };
  }, [load]);

  const doc = opened?.load === load ? opened.doc : undefined;

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!doc || !canvas) return;
    let cancelled = false;
    const render = renderPage(doc, Math.min(Math.max(page, 1), doc.numPages), canvas, width);
    render.promise
      .then(() => {
        if (!cancelled) setDrawn({ doc, page, width, ok: true });
      })
      .catch(() => {
        // A cancelled render rejects too; only a render still wanted has failed.
        if (!cancelled) setDrawn({ doc, page, width, ok: false });
      });
    return () => {
      cancelled = true;
      render.cancel();
    };
  }, [doc, page, width]);

  // The canvas keeps its last page while the next one is drawn, so zooming does not flash.
  const current = drawn !== null && drawn.doc === doc;
  const failed = doc === null || (current && drawn.page === page && drawn.width === width && !drawn.ok);
  const ready = current && drawn.ok;
  return (
    <div className="pdf-canvas">
      <canvas ref={canvasRef} className="pdf-canvas__page" role="img" aria-label={label} hidden={!ready || failed} />
      {!ready && !failed ? <p className="muted">{t('viewer.pdfLoading')}</p> : null}
      {failed ? <p className="muted">{t('viewer.pdfFailed')}</p> : null}
    </div>
  );
}
