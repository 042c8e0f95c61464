import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useGetKycCaseQuery, type KycCase } from '../../api/enhanced';
import { formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { FormError, useFormError } from '../../components/form/FormError';
import { useToast } from '../../components/toast/useToast';
import { useLabels } from '../../components/labels';
import type { RunOutcome } from '../../components/useRunMutation';
import { ApproveDialog, RejectDialog } from './DecisionDialogs';
import { DocumentViewer } from './DocumentViewer';
import { SubmissionHistory } from './SubmissionHistory';
import { useCountryName } from './queueWords';
import { Trans, useTranslation } from '../../i18n';

function Profile({ user }: { user: KycCase['user'] }) {
  const { t } = useTranslation('staff');
  const labels = useLabels();
  const countryName = useCountryName();
  const rows: [string, string][] = [
    [t('kyc.name'), user.name || '—'],
    [t('kyc.email'), user.email],
    [t('kyc.phone'), user.phone || '—'],
    [t('kyc.country'), user.country ? countryName(user.country) : '—'],
    [t('kyc.verified'), user.isVerified ? t('kyc.yes') : t('kyc.no')],
    [t('kyc.created'), formatDateTime(user.createdAt)],
    [t('kyc.status'), labels.accountStatus(user.status)],
  ];
  return (
    <dl className="facts">
      {rows.map(([term, value]) => (
        <div key={term} className="facts__row">
          <dt>{term}</dt>
          <dd className="break-anywhere">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function CaseView({ kase, onRefresh }: { kase: KycCase; onRefresh: () => void }) {
  const { t } = useTranslation('staff');
  const navigate = useNavigate();
  const labels = useLabels();
  const toast = useToast();
  const [formError, setFormError] = useFormError();
  const [open, setOpen] = useState<'approve' | 'reject' | null>(null);
  const pending = kase.kycStatus === 'Pending';
  const submission = kase.submissions[0]?.submission ?? 0;
  const name = kase.user.name || kase.user.email;

  const decided = (fallback: string) => (outcome: RunOutcome<{ message: string }>) => {
    if (outcome.ok) {
      setOpen(null);
      toast.success(outcome.data.message || fallback);
      navigate('/pending-kyc');
      return;
    }
    // Any other refusal stays in the dialog, above its form. Someone else decided first, or a
    // new submission came in: the dialog closes, the case shows how it is now, and the refusal
    // says why above it.
    if (outcome.error.status === 409) {
      setOpen(null);
      setFormError(outcome.message);
      onRefresh();
    }
  };

  return (
    <div className="stack stack--lg">
      <FormError message={formError} />
      <p>
        <Trans t={t} i18nKey="kyc.caseStatus" values={{ status: labels.kyc(kase.kycStatus) }} components={{ status: <strong /> }} />
        {submission > 0 ? t('kyc.caseSubmission', { number: submission }) : null}
        {submission > 1 ? <span className="badge badge--warning queue-item__badge">{t('kyc.reupload')}</span> : null}
      </p>
      {pending ? (
        <div className="button-row">
          <button type="button" className="button" onClick={() => setOpen('approve')}>
            {t('kyc.approve')}
          </button>
          <button type="button" className="button button--danger" onClick={() => setOpen('reject')}>
            {t('kyc.reject')}
          </button>
        </div>
      ) : (
        <p className="panel">{t('kyc.notWaiting')}</p>
      )}

      <section aria-labelledby="case-documents">
        <h2 id="case-documents" className="section-title">
          {t('kyc.documents')}
        </h2>
        {kase.documents.length === 0 ? (
          <p className="empty">{t('kyc.noDocuments')}</p>
        ) : (
          <div className="doc-viewers">
            {kase.documents.map((doc) => (
              <DocumentViewer key={`${doc.side}-${doc.submission}`} doc={doc} />
            ))}
          </div>
        )}
      </section>

      <section aria-labelledby="case-profile">
        <h2 id="case-profile" className="section-title">
          {t('kyc.profile')}
        </h2>
        <Profile user={kase.user} />
      </section>

      <section aria-labelledby="case-history">
        <h2 id="case-history" className="section-title">
          {t('kyc.submissions')}
        </h2>
        <SubmissionHistory submissions={kase.submissions} />
      </section>

      {open === 'approve' ? (
        <ApproveDialog userId={kase.user._id} name={name} submission={submission} onClose={() => setOpen(null)} onDecided={decided(t('kyc.approved'))} />
      ) : null}
      {open === 'reject' ? (
        <RejectDialog
          userId={kase.user._id}
          name={name}
          submission={submission}
          sides={kase.documents.map((doc) => doc.side)}
          onClose={() => setOpen(null)}
          onDecided={decided(t('kyc.rejected'))}
        />
      ) : null}
    </div>
  );
}

export function KycCasePage() {
  const { t } = useTranslation('staff');
  const { id = '' } = useParams();
  const kase = useGetKycCaseQuery({ id }, { refetchOnMountOrArgChange: true });
  const title = kase.data ? t('kyc.caseTitle', { name: kase.data.user.name || kase.data.user.email }) : t('kyc.caseTitlePlain');
  return (
    <section className="page container" aria-labelledby="kyc-case-title">
      <p>
        <Link to="/pending-kyc">{t('kyc.back')}</Link>
      </p>
      <h1 id="kyc-case-title">{title}</h1>
      <QueryState query={kase} loading={t('kyc.loading')} failed={t('kyc.failed')}>
        {(data) => <CaseView kase={data} onRefresh={() => void kase.refetch()} />}
      </QueryState>
    </section>
  );
}
