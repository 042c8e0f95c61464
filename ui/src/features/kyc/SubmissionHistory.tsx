import type { KycSubmission } from '../../api/enhanced';
import { formatDateTime } from '../../components/format';
import { reasonLabel, sideLabel } from '../../components/kycWords';
import { useLabels } from '../../components/labels';

function Decision({ submission }: { submission: KycSubmission }) {
  const decision = submission.decision;
  const labels = useLabels();
  if (!decision) return <p className="badge">Waiting for review</p>;
  return (
    <div>
      <p>
        <span className={`badge${decision.status === 'Approved' ? ' badge--success' : ' badge--danger'}`}>{labels.kycDecision(decision.status)}</span>{' '}
        {formatDateTime(decision.at)} by {decision.reviewer.name || 'a former staff member'}
      </p>
      {decision.documents.length > 0 ? (
        <ul className="reason-list">
          {decision.documents.map((doc) => (
            <li key={doc.side}>
              {sideLabel[doc.side]}: {reasonLabel(doc.reason)}
            </li>
          ))}
        </ul>
      ) : null}
      {decision.comment ? <p className="break-anywhere">Comment: “{decision.comment}”</p> : null}
    </div>
  );
}

// Every submission, newest first, with the documents it carried and its decision.
export function SubmissionHistory({ submissions }: { submissions: readonly KycSubmission[] }) {
  if (submissions.length === 0) return <p className="empty">No submissions yet.</p>;
  return (
    <ol className="history" reversed>
      {submissions.map((submission) => (
        <li key={submission.submission} className="history__item" data-testid="kyc-submission">
          <h3 className="history__title">
            Submission {submission.submission} <span className="muted">· {formatDateTime(submission.submittedAt)}</span>
          </h3>
          <p className="muted">Sent: {submission.documents.map((doc) => sideLabel[doc.side]).join(' and ') || 'no files'}</p>
          <Decision submission={submission} />
        </li>
      ))}
    </ol>
  );
}
