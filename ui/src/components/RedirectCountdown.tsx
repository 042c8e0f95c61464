import { useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router';

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
      Going to your dashboard in {left} s… <Link to={to}>Go now</Link>
    </p>
  );
}
