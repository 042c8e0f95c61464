// The label sample content carries wherever it shows (docs/content.md): visitors must never
// take placeholder people or text for real ones.
export function SampleLabel({ children }: { children: string }) {
  return <span className="badge badge--warning sample-label">{children}</span>;
}
