import { describe, expect, it } from 'vitest';
import { chartShape } from './chartShape';

describe('chartShape', () => {
  it('draws nothing without data, a figure for one point and a chart from two points up', () => {
    expect(chartShape(0)).toBe('empty');
    expect(chartShape(1)).toBe('single');
    expect(chartShape(2)).toBe('chart');
    expect(chartShape(40)).toBe('chart');
  });
});
