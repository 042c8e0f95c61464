import { Link } from 'react-router';
import { useGetMyKycQuery, type MyKyc } from '../../api/enhanced';
import { formatDateTime } from '../../components/format';
import { KYC_SIDES, useKycWords } from '../../components/kycWords';
import { QueryState } from '../../components/QueryState';
import { DecisionReasons } from '../../components/DecisionReasons';
import { Trans, useTranslation } from '../../i18n';
import { KycUploadForm } from './KycUploadForm';

function NotSubmitted({ kyc }: { kyc: MyKyc }) {
  const { t } = useTranslation('kyc');
  const sides = kyc.resubmit.length > 0 ? kyc.resubmit : KYC_SIDES;
  return (
    <div className="stack stack--lg">
      <p>{t('upload.intro')}</p>
      <KycUploadForm sides={sides} />
    </div>
  );
}

function Pending({ kyc }: { kyc: MyKyc }) {
  const { t } = useTranslation('kyc');
  const words = useKycWords();
  return (
    <div className="panel" data-testid="kyc-pending">
      <h2 className="panel__title">{t('upload.reviewing')}</h2>
      <p>{kyc.submittedAt ? t('upload.thanksOn', { date: formatDateTime(kyc.submittedAt) }) : t('upload.thanks')}</p>
      {kyc.documents.length > 0 ? (
        <ul className="doc-list">
          {kyc.documents.map((doc) => (
            <li key={doc.side}>
              <Trans
                t={t}
                i18nKey="upload.document"
                values={{ side: words.side(doc.side), type: words.typeName(doc.contentType), size: words.formatBytes(doc.size) }}
                components={{ side: <strong /> }}
              />
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function Approved() {
  const { t } = useTranslation('kyc');
  return (
    <div className="panel panel--success">
      <h2 className="panel__title">{t('upload.verified')}</h2>
      <p>{t('upload.open')}</p>
      <Link className="button" to="/start-invest">
        {t('upload.start')}
      </Link>
    </div>
  );
}

function Rejected({ kyc }: { kyc: MyKyc }) {
  const { t } = useTranslation('kyc');
  const sides = kyc.resubmit.length > 0 ? kyc.resubmit : KYC_SIDES;
  return (
    <div className="stack stack--lg">
      <div className="panel panel--error" data-testid="kyc-rejected">
        <h2 className="panel__title">{t('upload.rejected')}</h2>
        {kyc.lastDecision ? <DecisionReasons decision={kyc.lastDecision} /> : null}
        <p>{sides.length > 1 ? t('upload.againBoth') : sides[0] === 'front' ? t('upload.againFront') : t('upload.againBack')}</p>
      </div>
      <KycUploadForm sides={sides} />
    </div>
  );
}

function KycStatusView({ kyc }: { kyc: MyKyc }) {
  switch (kyc.kycStatus) {
    case 'Pending':
      return <Pending kyc={kyc} />;
    case 'Approved':
      return <Approved />;
    case 'Rejected':
      return <Rejected kyc={kyc} />;
    default:
      return <NotSubmitted kyc={kyc} />;
  }
}

export function UploadKycPage() {
  const { t } = useTranslation('kyc');
  const kyc = useGetMyKycQuery({});
  return (
    <section className="page container page--kyc" aria-labelledby="kyc-title">
      <p className="eyebrow">{t('upload.eyebrow')}</p>
      <h1 id="kyc-title">{t('upload.title')}</h1>
      <QueryState query={kyc} loading={t('upload.loading')} failed={t('upload.failed')}>
        {(data) => <KycStatusView kyc={data} />}
      </QueryState>
    </section>
  );
}
