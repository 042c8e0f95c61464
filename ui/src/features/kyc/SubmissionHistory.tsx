import type { KycSubmission } from '../../api/enhanced';
import { formatDateTime } from '../../components/format';
import { useKycWords } from '../../components/kycWords';
import { useTranslation } from '../../i18n';
import { useLabels } from '../../components/labels';

function Decision({ submission }: { submission: KycSubmission }) {
  const { t } = useTranslation('staff');
  const words = useKycWords();
  const decision = submission.decision;
  const labels = useLabels();
  if (!decision) return <p className="badge">{t('kyc.waiting')}</p>;
  return (
    <div>
      <p>
        <span className={`badge${decision.status === 'Approved' ? ' badge--success' : ' badge--danger'}`}>{labels.kycDecision(decision.status)}</span>{' '}
        {t('kyc.decidedBy', { at: formatDateTime(decision.at), name: decision.reviewer.name || t('kyc.formerStaff') })}
      </p>
      {decision.documents.length > 0 ? (
        <ul className="reason-list">
          {decision.documents.map((doc) => (
            <li key={doc.side}>
              {words.side(doc.side)}: {words.reason(doc.reason)}
            </li>
          ))}
        </ul>
      ) : null}
      {decision.comment ? <p className="break-anywhere">{t('kyc.comment', { comment: decision.comment })}</p> : null}
    </div>
  );
}

// Every submission, newest first, with the documents it carried and its decision.
export function SubmissionHistory({ submissions }: { submissions: readonly KycSubmission[] }) {
  const { t } = useTranslation('staff');
  const words = useKycWords();
  if (submissions.length === 0) return <p className="empty">{t('kyc.noSubmissions')}</p>;
  return (
    <ol className="history" reversed>
      {submissions.map((submission) => (
        <li key={submission.submission} className="history__item" data-testid="kyc-submission">
          <h3 className="history__title">
            {t('kyc.submission', { number: submission.submission })} <span className="muted">· {formatDateTime(submission.submittedAt)}</span>
          </h3>
          <p className="muted">
            {t('kyc.sent', { sides: submission.documents.map((doc) => words.side(doc.side)).join(t('kyc.and')) || t('kyc.noFiles') })}
          </p>
          <Decision submission={submission} />
        </li>
      ))}
    </ol>
  );
}
