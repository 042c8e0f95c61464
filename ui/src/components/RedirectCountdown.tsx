import { useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { Trans } from '../i18n';

// Counts down to the dashboard, as after every money request; the link goes at once.
export function RedirectCountdown({ seconds, to = '/my-account' }: { seconds: number; to?: string }) {
  const navigate = useNavigate();
  const [left, setLeft] = useState(seconds);
  useEffect(() => {
    if (left <= 0) {
      void navigate(to);
      return;
    }
    const timer = setTimeout(() => setLeft((n) => n - 1), 1000);
    return () => clearTimeout(timer);
  }, [left, navigate, to]);
  return (
    <p role="status">
      <Trans ns="common" i18nKey="redirect.countdown" count={left} components={{ now: <Link to={to} /> }} />
    </p>
  );
}
