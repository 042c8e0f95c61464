import { passwordChecks } from './validation';

// The live strength checklist (docs/product-rules.md). Each item says in words whether it is met, so the
// state does not depend on colour or the tick alone.
export function PasswordChecklist({ password }: { password: string }) {
  return (
    <div className="checklist">
      <p className="checklist__title">A strong password has:</p>
      <ul className="checklist__items">
        {passwordChecks.map((check) => {
          const met = check.test(password);
          return (
            <li key={check.id} className="checklist__item" data-met={met}>
              <span className="checklist__mark" aria-hidden="true">
                {met ? '✓' : '✗'}
              </span>
              {check.label}
              <span className="visually-hidden">{met ? ' (done)' : ' (not yet)'}</span>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
