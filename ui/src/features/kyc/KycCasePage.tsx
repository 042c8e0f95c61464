import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useGetKycCaseQuery, type KycCase } from '../../api/enhanced';
import { formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { useToast } from '../../components/toast/useToast';
import { useLabels } from '../../components/labels';
import type { RunOutcome } from '../../components/useRunMutation';
import { ApproveDialog, RejectDialog } from './DecisionDialogs';
import { DocumentViewer } from './DocumentViewer';
import { SubmissionHistory } from './SubmissionHistory';
import { countryName } from './queueWords';

function Profile({ user }: { user: KycCase['user'] }) {
  const labels = useLabels();
  const rows: [string, string][] = [
    ['Name', user.name || '—'],
    ['E-mail', user.email],
    ['Phone', user.phone || '—'],
    ['Country', user.country ? countryName(user.country) : '—'],
    ['E-mail verified', user.isVerified ? 'Yes' : 'No'],
    ['Account created', formatDateTime(user.createdAt)],
    ['Account status', labels.accountStatus(user.status)],
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
  const navigate = useNavigate();
  const labels = useLabels();
  const toast = useToast();
  const [open, setOpen] = useState<'approve' | 'reject' | null>(null);
  const pending = kase.kycStatus === 'Pending';
  const submission = kase.submissions[0]?.submission ?? 0;
  const name = kase.user.name || kase.user.email;

  const decided = (fallback: string) => (outcome: RunOutcome<{ message: string }>) => {
    setOpen(null);
    if (outcome.ok) {
      toast.success(outcome.data.message || fallback);
      navigate('/pending-kyc');
      return;
    }
    // Someone else decided first, or a new submission came in: show the case as it is now.
    if (outcome.error.status === 409) onRefresh();
  };

  return (
    <div className="stack stack--lg">
      <p>
        Status: <strong>{labels.kyc(kase.kycStatus)}</strong>
        {submission > 0 ? <> · submission {submission}</> : null}
        {submission > 1 ? <span className="badge badge--warning queue-item__badge">re-upload</span> : null}
      </p>
      {pending ? (
        <div className="button-row">
          <button type="button" className="button" onClick={() => setOpen('approve')}>
            Approve
          </button>
          <button type="button" className="button button--danger" onClick={() => setOpen('reject')}>
            Reject
          </button>
        </div>
      ) : (
        <p className="panel">This identity check is not waiting for a decision.</p>
      )}

      <section aria-labelledby="case-documents">
        <h2 id="case-documents" className="section-title">
          Current documents
        </h2>
        {kase.documents.length === 0 ? (
          <p className="empty">No documents on file.</p>
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
          Profile
        </h2>
        <Profile user={kase.user} />
      </section>

      <section aria-labelledby="case-history">
        <h2 id="case-history" className="section-title">
          Submissions
        </h2>
        <SubmissionHistory submissions={kase.submissions} />
      </section>

      {open === 'approve' ? (
        <ApproveDialog userId={kase.user._id} name={name} submission={submission} onClose={() => setOpen(null)} onDecided={decided('Identity check approved.')} />
      ) : null}
      {open === 'reject' ? (
        <RejectDialog
          userId={kase.user._id}
          name={name}
          submission={submission}
          sides={kase.documents.map((doc) => doc.side)}
          onClose={() => setOpen(null)}
          onDecided={decided('Documents rejected.')}
        />
      ) : null}
    </div>
  );
}

export function KycCasePage() {
  const { id = '' } = useParams();
  const kase = useGetKycCaseQuery({ id }, { refetchOnMountOrArgChange: true });
  const title = kase.data ? `Identity check: ${kase.data.user.name || kase.data.user.email}` : 'Identity check';
  return (
    <section className="page container" aria-labelledby="kyc-case-title">
      <p>
        <Link to="/pending-kyc">← Back to the queue</Link>
      </p>
      <h1 id="kyc-case-title">{title}</h1>
      <QueryState query={kase} loading="Loading the case…" failed="The case could not be loaded">
        {(data) => <CaseView kase={data} onRefresh={() => void kase.refetch()} />}
      </QueryState>
    </section>
  );
}
