import { useCallback, useState } from 'react';
import { useKycWords } from '../../components/kycWords';
import { useTranslation } from '../../i18n';
import { PdfCanvas } from './PdfCanvas';
import { previewKind } from './validation';

// Shows the file through an object URL made when the image is attached and revoked when the file
// changes or the image goes (a ref callback's cleanup), so no URL outlives its preview.
function useObjectUrlRef(file: File) {
  return useCallback(
    (img: HTMLImageElement | null) => {
      if (!img || typeof URL.createObjectURL !== 'function') return;
      const url = URL.createObjectURL(file);
      img.src = url;
      return () => {
        img.removeAttribute('src');
        URL.revokeObjectURL(url);
      };
    },
    [file],
  );
}

export function FileIcon({ name, size, type }: { name: string; size: number; type: string }) {
  const { typeName, formatBytes } = useKycWords();
  return (
    <div className="file-icon">
      <span className="file-icon__glyph" aria-hidden="true">
        📄
      </span>
      <span className="file-icon__name break-anywhere">{name}</span>
      <span className="muted">
        {typeName(type)} · {formatBytes(size)}
      </span>
    </div>
  );
}

function ImagePreview({ file, label }: { file: File; label: string }) {
  const ref = useObjectUrlRef(file);
  const [broken, setBroken] = useState<File | null>(null);
  if (broken === file) return <FileIcon name={file.name} size={file.size} type={file.type} />;
  return <img ref={ref} className="doc-preview__image" alt={label} onError={() => setBroken(file)} />;
}

// What the user picked, before it is sent: the picture, the first page of a PDF, or (for HEIC and
// anything else the browser cannot draw) an icon with the name and size.
export function FilePreview({ file, label }: { file: File; label: string }) {
  const { t } = useTranslation('kyc');
  const { formatBytes } = useKycWords();
  const kind = previewKind(file.type, file.name);
  const load = useCallback(() => file.arrayBuffer(), [file]);
  return (
    <figure className="doc-preview">
      {kind === 'image' ? <ImagePreview file={file} label={label} /> : null}
      {kind === 'pdf' ? <PdfCanvas load={load} label={t('slot.firstPage', { label })} width={320} /> : null}
      {kind === 'file' ? <FileIcon name={file.name} size={file.size} type={file.type} /> : null}
      {kind !== 'file' ? (
        <figcaption className="doc-preview__caption muted break-anywhere">
          {file.name} · {formatBytes(file.size)}
        </figcaption>
      ) : null}
    </figure>
  );
}
