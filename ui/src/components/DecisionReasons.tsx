import type { KycDecision } from '../api/enhanced';
import { useTranslation } from '../i18n';
import { useKycWords } from './kycWords';

// A rejection in the user's words: each refused document with what was wrong, and the reviewer's
// comment.
export function DecisionReasons({ decision }: { decision: KycDecision }) {
  const { t } = useTranslation('kyc');
  const words = useKycWords();
  return (
    <>
      {decision.documents.length > 0 ? (
        <ul className="reason-list">
          {decision.documents.map((doc) => (
            <li key={doc.side}>
              <strong>{words.side(doc.side)}:</strong> {words.advice(doc.reason)}
            </li>
          ))}
        </ul>
      ) : null}
      {decision.comment ? (
        <div className="reviewer-comment">
          <p className="reviewer-comment__label">{t('upload.comment')}</p>
          <blockquote className="reviewer-comment__text break-anywhere">{decision.comment}</blockquote>
        </div>
      ) : null}
    </>
  );
}
