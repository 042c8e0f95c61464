import type { ReactNode } from 'react';

// The frame every sign-in page shares: a narrow card that fills a phone screen and centres on a
// wide one, headed by the page's h1.
export function AuthCard({ title, titleId, lead, children, footer }: {
  title: string;
  titleId: string;
  lead?: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
}) {
  return (
    <section className="auth" aria-labelledby={titleId}>
      <div className="auth__card">
        <h1 id={titleId} className="auth__title">
          {title}
        </h1>
        {lead ? <div className="auth__lead">{lead}</div> : null}
        {children}
        {footer ? <div className="auth__footer">{footer}</div> : null}
      </div>
    </section>
  );
}
