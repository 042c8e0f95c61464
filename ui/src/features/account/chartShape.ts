// How a chart's data is shown: nothing yet, one figure, or a drawing. A single point draws no
// line and a single month one wide bar, neither of which says more than the figure itself, so one
// data point is shown as a figure with its date (docs/design-system.md, "Charts").
export type ChartShape = 'empty' | 'single' | 'chart';

export function chartShape(points: number): ChartShape {
  if (points <= 0) return 'empty';
  return points === 1 ? 'single' : 'chart';
}
