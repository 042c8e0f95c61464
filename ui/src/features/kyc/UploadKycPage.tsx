import { Link } from 'react-router';
import { useGetMyKycQuery, type MyKyc } from '../../api/enhanced';
import { formatDateTime } from '../../components/format';
import { formatBytes, KYC_SIDES, sideLabel, typeName } from '../../components/kycWords';
import { QueryState } from '../../components/QueryState';
import { DecisionReasons } from '../../components/DecisionReasons';
import { KycUploadForm } from './KycUploadForm';

function NotSubmitted({ kyc }: { kyc: MyKyc }) {
  const sides = kyc.resubmit.length > 0 ? kyc.resubmit : KYC_SIDES;
  return (
    <div className="stack stack--lg">
      <p>
        Before you can invest we need to confirm who you are. Upload both sides of a valid passport, national ID card or
        driving licence. Make sure the whole document is visible and easy to read.
      </p>
      <KycUploadForm sides={sides} />
    </div>
  );
}

function Pending({ kyc }: { kyc: MyKyc }) {
  return (
    <div className="panel" data-testid="kyc-pending">
      <h2 className="panel__title">Your documents are under review</h2>
      <p>
        Thank you{kyc.submittedAt ? <>, we received them on {formatDateTime(kyc.submittedAt)}</> : null}. We will e-mail you
        as soon as we have checked them. There is nothing else you need to do.
      </p>
      {kyc.documents.length > 0 ? (
        <ul className="doc-list">
          {kyc.documents.map((doc) => (
            <li key={doc.side}>
              <strong>{sideLabel[doc.side]}:</strong> {typeName(doc.contentType)}, {formatBytes(doc.size)}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function Approved() {
  return (
    <div className="panel panel--success">
      <h2 className="panel__title">Your identity is verified</h2>
      <p>Thank you. Investing is now open to you.</p>
      <Link className="button" to="/start-invest">
        Start investing
      </Link>
    </div>
  );
}

function Rejected({ kyc }: { kyc: MyKyc }) {
  const sides = kyc.resubmit.length > 0 ? kyc.resubmit : KYC_SIDES;
  return (
    <div className="stack stack--lg">
      <div className="panel panel--error" data-testid="kyc-rejected">
        <h2 className="panel__title">We could not accept your documents</h2>
        {kyc.lastDecision ? <DecisionReasons decision={kyc.lastDecision} /> : null}
        <p>
          Please upload {sides.length > 1 ? 'both documents' : `the ${sides[0] === 'front' ? 'front' : 'back'} of your document`}{' '}
          again. {sides.length === 1 ? 'The other side was fine and is kept.' : null}
        </p>
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
  const kyc = useGetMyKycQuery({});
  return (
    <section className="page container page--kyc" aria-labelledby="kyc-title">
      <p className="eyebrow">Identity check</p>
      <h1 id="kyc-title">Identity Check</h1>
      <QueryState query={kyc} loading="Loading your identity check…" failed="Your identity check could not be loaded">
        {(data) => <KycStatusView kyc={data} />}
      </QueryState>
    </section>
  );
}
