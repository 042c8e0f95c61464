// The error state every data-backed page shares: what failed, in words, and a way to try again.
export function LoadError({ title, message, onRetry }: { title: string; message: string; onRetry?: () => void }) {
  return (
    <div className="panel panel--error" role="alert">
      <h2 className="panel__title">{title}</h2>
      <p>{message}</p>
      {onRetry ? (
        <button type="button" className="button button--secondary" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}
