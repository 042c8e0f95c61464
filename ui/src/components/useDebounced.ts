import { useEffect, useState } from 'react';

// The value, once it has stopped changing for `delay` ms: typing a search does not fire a
// request per key.
export function useDebounced<T>(value: T, delay = 300) {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return settled;
}
