import { useCallback, useEffect, useState, type CSSProperties } from 'react';
import type { KycDocument } from '../../api/enhanced';
import { newIdempotencyKey } from '../../components/idempotencyKey';
import { useKycWords } from '../../components/kycWords';
import { useTranslation } from '../../i18n';
import { FileIcon } from './FilePreview';
import { PdfCanvas } from './PdfCanvas';
import { useBoxSize, type BoxSize } from './useBoxSize';
import { previewKind } from './validation';

const ZOOMS = [0.5, 0.75, 1, 1.25, 1.5, 2, 3];
const BASE_WIDTH = 560;

// A reviewer's fetch of a document is a POST: it records the view in the owner's security log,
// and a GET never changes anything. So the file is fetched here (with the CSRF header) and shown
// from memory, never loaded by an <img src> or a plain link. The key makes a repeat of the same
// fetch (React runs effects twice in development) record nothing more.
async function fetchDocument(url: string, idempotencyKey: string) {
  const response = await fetch(
    new Request(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'X-Requested-With': 'XMLHttpRequest', 'Idempotency-Key': idempotencyKey },
    }),
  );
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.blob();
}

const EXTENSIONS: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp', 'image/heic': 'heic', 'application/pdf': 'pdf' };

function fileName(doc: KycDocument) {
  const ext = EXTENSIONS[doc.contentType];
  return ext ? `${doc.side}.${ext}` : doc.side;
}

type Loaded = { url: string; blob: Blob; objectUrl: string } | { url: string; failed: true };

// The document's bytes once fetched, as a Blob and an object URL (revoked when the viewer goes).
function useDocumentFile(url: string, enabled: boolean) {
  const [key] = useState(newIdempotencyKey);
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    let objectUrl = '';
    fetchDocument(url, key).then(
      (blob) => {
        if (!live) return;
        objectUrl = URL.createObjectURL(blob);
        setLoaded({ url, blob, objectUrl });
      },
      () => {
        if (live) setLoaded({ url, failed: true });
      },
    );
    return () => {
      live = false;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [url, key, enabled]);
  return loaded?.url === url ? loaded : null;
}

// Saves the document through a temporary object URL: a plain link would be a GET.
function saveDocument(blob: Blob, name: string) {
  const objectUrl = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = objectUrl;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(objectUrl), 0);
}

function DownloadInstead({ doc, label }: { doc: KycDocument; label: string }) {
  const [key] = useState(newIdempotencyKey);
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);
  const { t } = useTranslation('kyc');
  const words = useKycWords();
  const download = async () => {
    setBusy(true);
    setFailed(false);
    try {
      saveDocument(await fetchDocument(doc.url, key), fileName(doc));
    } catch {
      setFailed(true);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="doc-viewer__download">
      <FileIcon name={`${label} (${words.typeName(doc.contentType)})`} size={doc.size} type={doc.contentType} />
      <p className="muted">{t('viewer.cannotShow')}</p>
      <button type="button" className="button button--secondary" onClick={() => void download()} disabled={busy}>
        {t(`viewer.download_${doc.side}`)}
      </button>
      {failed ? <p role="alert">{t('viewer.downloadFailed')}</p> : null}
    </div>
  );
}

// How the document sits in the stage after `turns` quarter turns. The document is laid out at its
// zoomed width (`--doc-zoom` times the stage's width, in CSS), and `size` is that box before
// rotation. A frame of the rotated size (width and height swapped after an odd number of turns)
// takes its place in the stage, so the stage's scroll area is exactly the rotated document and its
// scrollbars reach every edge; the document is centred in the frame and rotated about its centre,
// and the frame is centred in the stage when smaller. Until the size is known (the first layout, or
// no layout at all) the document stays in the flow and is only rotated.
export function documentPlacement(turns: number, zoom: number, size: BoxSize | null): { frame: CSSProperties | undefined; content: CSSProperties; placed: boolean } {
  const rotate = `rotate(${turns * 90}deg)`;
  const zoomVar = { '--doc-zoom': String(zoom) } as CSSProperties;
  if (!size) return { frame: undefined, content: { ...zoomVar, transform: rotate }, placed: false };
  const sideways = turns % 2 === 1;
  // Whole pixels, rounded up, so a fractional size never leaves a sliver outside the frame.
  const width = Math.ceil(sideways ? size.height : size.width);
  const height = Math.ceil(sideways ? size.width : size.height);
  return {
    frame: { width: `${width}px`, height: `${height}px` },
    content: { ...zoomVar, transform: `translate(-50%, -50%) ${rotate}` },
    placed: true,
  };
}

// One identity document for a reviewer: zoom, rotate in quarter turns, page through a PDF, or a
// download for types the browser cannot show (HEIC).
export function DocumentViewer({ doc }: { doc: KycDocument }) {
  const { t } = useTranslation('kyc');
  const words = useKycWords();
  const label = t('viewer.label', { side: words.side(doc.side) });
  const kind = previewKind(doc.contentType);
  const [zoomIndex, setZoomIndex] = useState(ZOOMS.indexOf(1));
  const [turns, setTurns] = useState(0);
  const [page, setPage] = useState(1);
  const [pages, setPages] = useState(0);
  const [broken, setBroken] = useState(false);
  const url = doc.url;
  const showable = url !== '' && kind !== 'file' && !broken;
  const file = useDocumentFile(url, showable);
  const blob = file && 'blob' in file ? file.blob : null;
  const load = useCallback(() => (blob ? blob.arrayBuffer() : Promise.reject(new Error('not loaded'))), [blob]);
  const zoom = ZOOMS[zoomIndex] ?? 1;
  const headingId = `doc-${doc.side}-title`;
  const [contentRef, size] = useBoxSize();
  const placement = documentPlacement(turns, zoom, size);

  return (
    <section className="doc-viewer" aria-labelledby={headingId} data-testid={`document-${doc.side}`}>
      <h3 id={headingId} className="doc-viewer__title">
        {words.side(doc.side)}{' '}
        <span className="muted doc-viewer__meta">
          {t('viewer.meta', { type: words.typeName(doc.contentType), size: words.formatBytes(doc.size), submission: doc.submission })}
        </span>
      </h3>
      {url === '' ? <p className="empty">{t('viewer.deleted')}</p> : null}
      {url !== '' && !showable ? <DownloadInstead doc={doc} label={label} /> : null}
      {showable ? (
        <>
          <div className="doc-viewer__toolbar" role="toolbar" aria-label={t(`viewer.controls_${doc.side}`)}>
            <button type="button" className="button button--secondary button--small" onClick={() => setZoomIndex((i) => Math.max(0, i - 1))} disabled={zoomIndex === 0}>
              {t('viewer.zoomOut')}
            </button>
            <span className="doc-viewer__zoom" aria-live="polite">
              {Math.round(zoom * 100)}%
            </span>
            <button
              type="button"
              className="button button--secondary button--small"
              onClick={() => setZoomIndex((i) => Math.min(ZOOMS.length - 1, i + 1))}
              disabled={zoomIndex === ZOOMS.length - 1}
            >
              {t('viewer.zoomIn')}
            </button>
            <button
              type="button"
              className="button button--secondary button--small"
              onClick={() => {
                setZoomIndex(ZOOMS.indexOf(1));
                setTurns(0);
              }}
            >
              {t('viewer.reset')}
            </button>
            <button type="button" className="button button--secondary button--small" onClick={() => setTurns((t) => (t + 1) % 4)}>
              {t('viewer.rotate')}
            </button>
          </div>
          {/* A scrollable region takes focus so a keyboard can scroll a zoomed document (axe:
              scrollable-region-focusable). */}
          {/* eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex */}
          <div className="doc-viewer__stage" role="region" aria-label={t('viewer.stage', { label })} tabIndex={0}>
            <div className="doc-viewer__frame" style={placement.frame} data-testid={`document-${doc.side}-frame`}>
              <div ref={contentRef} className={placement.placed ? 'doc-viewer__turn doc-viewer__turn--placed' : 'doc-viewer__turn'} style={placement.content}>
                {file === null ? (
                  <p className="muted">{t('viewer.loading')}</p>
                ) : !('blob' in file) ? (
                  <p role="alert">{t('viewer.loadFailed')}</p>
                ) : kind === 'image' ? (
                  <img className="doc-viewer__image" src={file.objectUrl} alt={label} onError={() => setBroken(true)} />
                ) : (
                  <PdfCanvas load={load} page={page} width={Math.round(BASE_WIDTH * zoom)} label={t('viewer.page', { label, page })} onPageCount={setPages} />
                )}
              </div>
            </div>
          </div>
          {kind === 'pdf' && pages > 1 ? (
            <div className="doc-viewer__pages">
              <button type="button" className="button button--secondary button--small" onClick={() => setPage((p) => Math.max(1, p - 1))} disabled={page <= 1}>
                {t('viewer.previous')}
              </button>
              <span aria-live="polite">{t('viewer.pageOf', { page, pages })}</span>
              <button type="button" className="button button--secondary button--small" onClick={() => setPage((p) => Math.min(pages, p + 1))} disabled={page >= pages}>
                {t('viewer.next')}
              </button>
            </div>
          ) : null}
          {file && 'blob' in file ? (
            <a className="doc-viewer__open" href={file.objectUrl} download={fileName(doc)}>
              {t(`viewer.download_${doc.side}`)}
            </a>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
